// Helm's template engine: Go text/template with sprig's functions (less env and expandenv) and
// Helm's own (include, tpl, required, fail, toYaml, fromYaml, toJson, fromJson, lookup). Every
// file of templates/ is parsed into one set, so any can be included; those whose base name starts
// with "_" are partials and not rendered. A value missing from the map renders empty, or fails
// with strict (helm lint --strict).
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	"sigs.k8s.io/yaml"
)

const warnStart, warnEnd = "HELM_ERR_START", "HELM_ERR_END"

var warnPattern = regexp.MustCompile(warnStart + `(.*)` + warnEnd)

func warnWrap(msg string) error { return errors.New(warnStart + msg + warnEnd) }

type Engine struct {
	Strict   bool
	LintMode bool // required and fail only log (helm lint)
}

func toYAML(v interface{}) string {
	data, err := yaml.Marshal(v)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(data), "\n")
}

func toJSON(v interface{}) string {
	data, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(data)
}

func fromYAML(s string) map[string]interface{} {
	m := map[string]interface{}{}
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func fromYAMLArray(s string) []interface{} {
	a := []interface{}{}
	if err := yaml.Unmarshal([]byte(s), &a); err != nil {
		a = []interface{}{err.Error()}
	}
	return a
}

func fromJSON(s string) map[string]interface{} {
	m := map[string]interface{}{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func fromJSONArray(s string) []interface{} {
	a := []interface{}{}
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		a = []interface{}{err.Error()}
	}
	return a
}

// lookup offline, as `helm template` has it: no cluster, so an empty map.
func lookup(apiVersion, kind, namespace, name string) (map[string]interface{}, error) {
	return map[string]interface{}{}, nil
}

func (e Engine) funcMap(t *template.Template) template.FuncMap {
	f := sprig.TxtFuncMap()
	delete(f, "env")
	delete(f, "expandenv")
	included := map[string]int{}
	extra := template.FuncMap{
		"toYaml": toYAML,
		"mustToYaml": func(v interface{}) (string, error) {
			d, err := yaml.Marshal(v)
			return strings.TrimSuffix(string(d), "\n"), err
		},
		"fromYaml":      fromYAML,
		"fromYamlArray": fromYAMLArray,
		"toJson":        toJSON,
		"mustToJson":    func(v interface{}) (string, error) { d, err := json.Marshal(v); return string(d), err },
		"fromJson":      fromJSON,
		"fromJsonArray": fromJSONArray,
		"lookup":        lookup,
		// DNS is off unless `helm template --enable-dns`.
		"getHostByName": func(string) string { return "" },
		"include": func(name string, data interface{}) (string, error) {
			if included[name] > 1000 {
				return "", fmt.Errorf("rendering template has a nested reference name: %s: unable to execute template", name)
			}
			included[name]++
			defer func() { included[name]-- }()
			var buf strings.Builder
			err := t.ExecuteTemplate(&buf, name, data)
			return buf.String(), err
		},
		"tpl": func(text string, vals Values) (string, error) {
			clone, err := t.Clone()
			if err != nil {
				return "", err
			}
			name, _ := vals["Template"].(map[string]interface{})["Name"].(string)
			parsed, err := clone.New(name).Parse(text)
			if err != nil {
				return "", fmt.Errorf("error during tpl function execution for %q: %w", text, err)
			}
			var buf strings.Builder
			if err := parsed.Execute(&buf, vals); err != nil {
				return "", fmt.Errorf("error during tpl function execution for %q: %w", text, err)
			}
			return strings.ReplaceAll(buf.String(), "<no value>", ""), nil
		},
		"required": func(warn string, val interface{}) (interface{}, error) {
			if val == nil || val == "" {
				if e.LintMode {
					warnf("[INFO] Missing required value: %s", warn)
					return "", nil
				}
				return val, warnWrap(warn)
			}
			return val, nil
		},
		"fail": func(msg string) (string, error) {
			if e.LintMode {
				warnf("[INFO] Fail: %s", msg)
				return "", nil
			}
			return "", warnWrap(msg)
		},
	}
	for k, v := range extra {
		f[k] = v
	}
	return f
}

// byDepthThenName: Helm parses shallower paths first, then by name.
func sortedTemplates(ts []Template) []Template {
	out := append([]Template(nil), ts...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := strings.Count(out[i].Name, "/"), strings.Count(out[j].Name, "/")
		if a != b {
			return a < b
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Render returns each rendered non-partial template by name.
func (e Engine) Render(chart *Chart, top Values) (rendered map[string]string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("rendering template failed: %v", r)
		}
	}()
	t := template.New("gotpl")
	if e.Strict {
		t.Option("missingkey=error")
	} else {
		t.Option("missingkey=zero")
	}
	t.Funcs(e.funcMap(t))
	templates := sortedTemplates(chart.Templates)
	for _, tpl := range templates {
		if _, err := t.New(tpl.Name).Parse(tpl.Data); err != nil {
			return nil, cleanupParseError(tpl.Name, err)
		}
	}
	rendered = map[string]string{}
	basePath := chart.Metadata.Name + "/templates"
	for _, tpl := range templates {
		if strings.HasPrefix(path.Base(tpl.Name), "_") {
			continue
		}
		top["Template"] = map[string]interface{}{"Name": tpl.Name, "BasePath": basePath}
		var buf strings.Builder
		if err := t.ExecuteTemplate(&buf, tpl.Name, top); err != nil {
			return nil, cleanupExecError(tpl.Name, err)
		}
		rendered[tpl.Name] = strings.ReplaceAll(buf.String(), "<no value>", "")
	}
	return rendered, nil
}

func cleanupParseError(name string, err error) error {
	tokens := strings.Split(err.Error(), ": ")
	if len(tokens) == 1 {
		return fmt.Errorf("parse error in (%s): %s", name, err)
	}
	return fmt.Errorf("parse error at (%s): %s", tokens[1], tokens[len(tokens)-1])
}

func cleanupExecError(name string, err error) error {
	var execErr template.ExecError
	if !errors.As(err, &execErr) {
		return err
	}
	tokens := strings.SplitN(err.Error(), ": ", 3)
	if len(tokens) != 3 {
		return fmt.Errorf("execution error in (%s): %s", name, err)
	}
	if parts := warnPattern.FindStringSubmatch(tokens[2]); len(parts) >= 2 {
		return fmt.Errorf("execution error at (%s): %s", tokens[1], parts[1])
	}
	return err
}
