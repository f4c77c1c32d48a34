// The chart as Helm's loader reads it: Chart.yaml, values.yaml, values.schema.json, the files
// under templates/ (rendered) and every other file (.Files).
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// Metadata is Chart.yaml, with the field names templates use (.Chart.Name, .Chart.AppVersion).
type Metadata struct {
	Name         string            `json:"name,omitempty"`
	Home         string            `json:"home,omitempty"`
	Sources      []string          `json:"sources,omitempty"`
	Version      string            `json:"version,omitempty"`
	Description  string            `json:"description,omitempty"`
	Keywords     []string          `json:"keywords,omitempty"`
	Icon         string            `json:"icon,omitempty"`
	APIVersion   string            `json:"apiVersion,omitempty"`
	Condition    string            `json:"condition,omitempty"`
	Tags         string            `json:"tags,omitempty"`
	AppVersion   string            `json:"appVersion,omitempty"`
	Deprecated   bool              `json:"deprecated,omitempty"`
	Annotations  map[string]string `json:"annotations,omitempty"`
	KubeVersion  string            `json:"kubeVersion,omitempty"`
	Type         string            `json:"type,omitempty"`
	Dependencies []interface{}     `json:"dependencies,omitempty"`
	Maintainers  []interface{}     `json:"maintainers,omitempty"`
}

// Template is one file under templates/, named as the engine names it: "<chart>/templates/x.yaml".
type Template struct {
	Name string
	Data string
}

type Chart struct {
	Dir       string
	Metadata  Metadata
	Values    map[string]interface{}
	Schema    []byte // nil: no values.schema.json
	Templates []Template
	Files     map[string][]byte // chart-relative path -> content
}

func readYAMLMap(path string) (map[string]interface{}, error) {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return map[string]interface{}{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string]interface{}{}
	if err := yaml.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("cannot load %s: %w", filepath.Base(path), err)
	}
	if out == nil {
		out = map[string]interface{}{}
	}
	return out, nil
}

func loadChart(dir string) (*Chart, error) {
	c := &Chart{Dir: dir, Files: map[string][]byte{}}
	raw, err := os.ReadFile(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		return nil, fmt.Errorf("Chart.yaml file is missing: %w", err)
	}
	if err := yaml.Unmarshal(raw, &c.Metadata); err != nil {
		return nil, fmt.Errorf("cannot load Chart.yaml: %w", err)
	}
	if c.Values, err = readYAMLMap(filepath.Join(dir, "values.yaml")); err != nil {
		return nil, err
	}
	if schema, err := os.ReadFile(filepath.Join(dir, "values.schema.json")); err == nil {
		c.Schema = schema
	}
	err = filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == "Chart.yaml" || rel == "values.yaml" || rel == "values.schema.json":
		case strings.HasPrefix(rel, "charts/"):
			return fmt.Errorf("%s: subcharts are not supported by this renderer", rel)
		case strings.HasPrefix(rel, "templates/"):
			data, err := os.ReadFile(path)
			c.Templates = append(c.Templates, Template{Name: c.Metadata.Name + "/" + rel, Data: string(data)})
			return err
		default:
			data, err := os.ReadFile(path)
			c.Files[rel] = data
			return err
		}
		return nil
	})
	sort.Slice(c.Templates, func(i, j int) bool { return c.Templates[i].Name < c.Templates[j].Name })
	return c, err
}
