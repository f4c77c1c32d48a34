// The checks of `helm lint` that need no cluster: Chart.yaml (name, apiVersion, version as
// SemVer, type), template file extensions, values against the schema, and per rendered document
// that it parses, its metadata.name is valid for its kind, and workloads have a selector.
package main

import (
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/Masterminds/semver/v3"
	"sigs.k8s.io/yaml"
)

type Finding struct {
	Severity string // ERROR, WARNING, INFO
	Path     string
	Message  string
}

func (f Finding) String() string { return fmt.Sprintf("[%s] %s: %s", f.Severity, f.Path, f.Message) }

func lintChartfile(md Metadata) []Finding {
	var out []Finding
	add := func(sev, msg string) { out = append(out, Finding{sev, "Chart.yaml", msg}) }
	if md.Name == "" {
		add("ERROR", "name is required")
	}
	switch md.APIVersion {
	case "":
		add("ERROR", `apiVersion is required. The value must be either "v1" or "v2"`)
	case "v1", "v2":
	default:
		add("ERROR", fmt.Sprintf(`apiVersion '%s' is not valid. The value must be either "v1" or "v2"`, md.APIVersion))
	}
	if md.Version == "" {
		add("ERROR", "version is required")
	} else if v, err := semver.NewVersion(md.Version); err != nil {
		add("ERROR", fmt.Sprintf("version '%s' is not a valid SemVer", md.Version))
	} else if c, _ := semver.NewConstraint(">0.0.0-0"); c != nil {
		if ok, msgs := c.Validate(v); !ok && len(msgs) > 0 {
			add("ERROR", fmt.Sprintf("version %v", msgs[0]))
		}
	}
	if md.Icon == "" {
		add("INFO", "icon is recommended")
	}
	if md.Type != "" && md.APIVersion != "v2" {
		add("ERROR", fmt.Sprintf("chart type is not valid in apiVersion '%s'. It is valid in apiVersion 'v2'", md.APIVersion))
	}
	if md.Type != "" && md.Type != "application" && md.Type != "library" {
		add("ERROR", "chart.metadata.type must be application or library")
	}
	return out
}

func lintExtension(name string) error {
	switch filepath.Ext(name) {
	case ".yaml", ".yml", ".tpl", ".txt":
		return nil
	}
	return fmt.Errorf("file extension '%s' not valid. Valid extensions are .yaml, .yml, .tpl, or .txt", filepath.Ext(name))
}

// Kubernetes' name checks (apimachinery validation), with its messages.
var (
	dns1123Label     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	dns1123Subdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	dns1035Label     = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)
)

func isDNS1123Subdomain(name string) []string {
	var errs []string
	if len(name) > 253 {
		errs = append(errs, "must be no more than 253 characters")
	}
	if !dns1123Subdomain.MatchString(name) {
		errs = append(errs, "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
	}
	return errs
}

func isDNS1123Label(name string) []string {
	var errs []string
	if len(name) > 63 {
		errs = append(errs, "must be no more than 63 characters")
	}
	if !dns1123Label.MatchString(name) {
		errs = append(errs, "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
	}
	return errs
}

func isDNS1035Label(name string) []string {
	var errs []string
	if len(name) > 63 {
		errs = append(errs, "must be no more than 63 characters")
	}
	if !dns1035Label.MatchString(name) {
		errs = append(errs, "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")
	}
	return errs
}

func isPathSegmentName(name string) []string {
	var errs []string
	if name == "." || name == ".." {
		errs = append(errs, fmt.Sprintf("may not be '%s'", name))
	}
	for _, bad := range []string{"/", "%"} {
		if strings.Contains(name, bad) {
			errs = append(errs, fmt.Sprintf("may not contain '%s'", bad))
		}
	}
	return errs
}

// nameCheck is helm lint's choice of name rule per kind.
func nameCheck(kind string) func(string) []string {
	switch strings.ToLower(kind) {
	case "service":
		return isDNS1035Label
	case "namespace":
		return isDNS1123Label
	case "certificatesigningrequest":
		return func(string) []string { return nil }
	case "role", "clusterrole", "rolebinding", "clusterrolebinding":
		return isPathSegmentName
	}
	return isDNS1123Subdomain
}

func lintMetadataName(h Head) error {
	msgs := nameCheck(h.Kind)(h.Metadata.Name)
	if len(msgs) == 0 {
		return nil
	}
	parts := make([]string, len(msgs))
	for i, m := range msgs {
		parts[i] = fmt.Sprintf("metadata.name: Invalid value: %q: %s", h.Metadata.Name, m)
	}
	joined := parts[0]
	if len(parts) > 1 {
		joined = "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Errorf("object name does not conform to Kubernetes naming requirements: %q: %s", h.Metadata.Name, joined)
}

func lintMatchSelector(h Head, content string) error {
	switch h.Kind {
	case "Deployment", "ReplicaSet", "DaemonSet", "StatefulSet":
		if !strings.Contains(content, "matchLabels") && !strings.Contains(content, "matchExpressions") {
			return fmt.Errorf("a %s must contain matchLabels or matchExpressions, and %q does not", h.Kind, h.Metadata.Name)
		}
	}
	return nil
}

// lintRendered checks each document of each rendered .yaml template.
func lintRendered(chart *Chart, rendered map[string]string) []Finding {
	var out []Finding
	for _, t := range chart.Templates {
		rel := strings.TrimPrefix(t.Name, chart.Metadata.Name+"/")
		if err := lintExtension(t.Name); err != nil {
			out = append(out, Finding{"ERROR", rel, err.Error()})
		}
		if strings.Contains(t.Data, ".Release.Time") {
			out = append(out, Finding{"ERROR", rel, ".Release.Time has been removed in v3, please replace with the `now` function in your templates"})
		}
		if path.Ext(t.Name) != ".yaml" || strings.HasPrefix(path.Base(t.Name), "_") {
			continue
		}
		for _, doc := range splitManifests(rendered[t.Name]) {
			var h Head
			if err := yaml.Unmarshal([]byte(doc), &h); err != nil {
				out = append(out, Finding{"ERROR", rel, "unable to parse YAML: " + err.Error()})
				continue
			}
			for _, err := range []error{lintMetadataName(h), lintMatchSelector(h, doc)} {
				if err != nil {
					out = append(out, Finding{"ERROR", rel, err.Error()})
				}
			}
		}
	}
	return out
}
