// --values-read: the values paths the templates read, found in the parse trees of Go's own
// template parser (every branch, rendered or not): .Values.a.b, $.Values.a, .root.Values.a
// (helpers called with a dict), $v.b where $v := .Values.a, and . inside `with .Values.a`.
package main

import (
	"sort"
	"strings"
	"text/template"
	"text/template/parse"
)

type readWalker struct {
	aliases map[string]string // "$prometheus" -> "controller.prometheus"
	read    map[string]bool
}

// afterValues: the path following a "Values" segment of a field chain.
func afterValues(idents []string) (string, bool) {
	for i, id := range idents {
		if id == "Values" {
			return strings.Join(idents[i+1:], "."), true
		}
	}
	return "", false
}

func joinPath(base string, rest []string) string {
	return strings.Trim(base+"."+strings.Join(rest, "."), ".")
}

// pathOf: the values path a node denotes with dot at `dot` ("" when dot is not inside values).
func (w *readWalker) pathOf(n parse.Node, dot string) (string, bool) {
	switch n := n.(type) {
	case *parse.FieldNode:
		if p, ok := afterValues(n.Ident); ok {
			return p, true
		}
		if dot != "" {
			return joinPath(dot, n.Ident), true
		}
	case *parse.VariableNode:
		if n.Ident[0] == "$" {
			return afterValues(n.Ident[1:])
		}
		if base, ok := w.aliases[n.Ident[0]]; ok {
			return joinPath(base, n.Ident[1:]), true
		}
	case *parse.DotNode:
		return dot, dot != ""
	case *parse.PipeNode:
		if len(n.Cmds) == 1 && len(n.Cmds[0].Args) == 1 {
			return w.pathOf(n.Cmds[0].Args[0], dot)
		}
	}
	return "", false
}

func (w *readWalker) walk(n parse.Node, dot string) {
	if n == nil {
		return
	}
	switch n := n.(type) {
	case *parse.FieldNode, *parse.VariableNode, *parse.DotNode:
		if p, ok := w.pathOf(n, dot); ok && p != "" {
			w.read[p] = true
		}
	case *parse.ListNode:
		if n != nil {
			for _, c := range n.Nodes {
				w.walk(c, dot)
			}
		}
	case *parse.ActionNode:
		w.walk(n.Pipe, dot)
	case *parse.PipeNode:
		if n == nil {
			return
		}
		// `$v := .Values.a` reads nothing yet: what is read is $v.b.
		if p, ok := w.pathOf(n, dot); ok && len(n.Decl) == 1 {
			w.aliases[n.Decl[0].Ident[0]] = p
			return
		}
		for _, c := range n.Cmds {
			for _, a := range c.Args {
				w.walk(a, dot)
			}
		}
	case *parse.ChainNode:
		w.walk(n.Node, dot)
	case *parse.IfNode:
		w.walkBranch(&n.BranchNode, dot, dot)
	case *parse.RangeNode:
		w.walkBranch(&n.BranchNode, dot, "")
	case *parse.WithNode:
		inner, _ := w.pathOf(n.Pipe, dot)
		w.walkBranch(&n.BranchNode, dot, inner)
	case *parse.TemplateNode:
		w.walk(n.Pipe, dot)
	}
}

func (w *readWalker) walkBranch(b *parse.BranchNode, dot, inner string) {
	w.walk(b.Pipe, dot)
	if b.List != nil {
		w.walk(b.List, inner)
	}
	if b.ElseList != nil {
		w.walk(b.ElseList, dot)
	}
}

// valuesRead lists the paths, sorted.
func valuesRead(chart *Chart) ([]string, error) {
	t := template.New("gotpl").Funcs(Engine{}.funcMap(template.New("x")))
	for _, tpl := range sortedTemplates(chart.Templates) {
		if _, err := t.New(tpl.Name).Parse(tpl.Data); err != nil {
			return nil, cleanupParseError(tpl.Name, err)
		}
	}
	w := &readWalker{aliases: map[string]string{}, read: map[string]bool{}}
	for _, tpl := range t.Templates() {
		if tpl.Tree != nil {
			w.walk(tpl.Tree.Root, "")
		}
	}
	out := make([]string, 0, len(w.read))
	for p := range w.read {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}
