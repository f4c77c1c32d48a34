// .Files: the chart's files outside templates/, as Helm's engine gives them to templates.
package main

import (
	"encoding/base64"
	"path"
	"strings"
)

type Files map[string][]byte

func (f Files) GetBytes(name string) []byte { return f[name] }
func (f Files) Get(name string) string      { return string(f[name]) }

// Glob keeps the files whose path matches the pattern ('*' stops at '/': path.Match, which is
// what Helm's glob library does for the patterns without '**' or braces).
func (f Files) Glob(pattern string) Files {
	out := Files{}
	for name, data := range f {
		if ok, _ := path.Match(pattern, name); ok {
			out[name] = data
		}
	}
	return out
}

// AsConfig: a YAML map of base name -> content, as a ConfigMap's data.
func (f Files) AsConfig() string {
	if len(f) == 0 {
		return ""
	}
	m := map[string]string{}
	for name, data := range f {
		m[path.Base(name)] = string(data)
	}
	return toYAML(m)
}

// AsSecrets: a YAML map of base name -> base64 content, as a Secret's data.
func (f Files) AsSecrets() string {
	if len(f) == 0 {
		return ""
	}
	m := map[string]string{}
	for name, data := range f {
		m[path.Base(name)] = base64.StdEncoding.EncodeToString(data)
	}
	return toYAML(m)
}

// Lines of one file, without the line ends.
func (f Files) Lines(name string) []string {
	if f[name] == nil {
		return []string{}
	}
	return strings.Split(string(f[name]), "\n")
}
