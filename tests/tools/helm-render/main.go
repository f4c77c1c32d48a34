// helm-render: a chart rendered as `helm template` renders it, and checked as `helm lint`
// checks it offline, for Tailor's tests (no helm binary can be installed on these machines). Built
// from Debian's Go packages of the libraries Helm itself uses: text/template, sprig v3,
// sigs.k8s.io/yaml and gojsonschema. Not shipped.
//
//	helm-render [flags] NAME CHART          manifests on stdout, like `helm template NAME CHART`
//	helm-render --lint [flags] CHART        findings on stdout, exit 1 on an [ERROR]
//	helm-render --values-read CHART         the values paths the templates read
//
// Not supported (an error says so): subcharts, hooks, --set list indexes.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/Masterminds/semver/v3"
)

type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func warnf(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
}

type options struct {
	namespace   string
	kubeVersion string
	valueFiles  stringList
	sets        stringList
	strict      bool
	lint        bool
	valuesRead  bool
}

// Capabilities as `helm template` has them offline: the Kubernetes version it was built for
// (--kube-version) and the built-in API versions.
type KubeVersion struct {
	Version, Major, Minor string
}

func (k KubeVersion) String() string     { return k.Version }
func (k KubeVersion) GitVersion() string { return k.Version }

type VersionSet []string

func (v VersionSet) Has(apiVersion string) bool {
	for _, x := range v {
		if x == apiVersion {
			return true
		}
	}
	return false
}

var builtinAPIVersions = VersionSet{
	"v1", "apps/v1", "batch/v1", "autoscaling/v1", "autoscaling/v2", "policy/v1",
	"coordination.k8s.io/v1", "rbac.authorization.k8s.io/v1", "networking.k8s.io/v1",
	"admissionregistration.k8s.io/v1", "apiextensions.k8s.io/v1", "storage.k8s.io/v1",
	"scheduling.k8s.io/v1", "discovery.k8s.io/v1", "events.k8s.io/v1",
	"authorization.k8s.io/v1", "authentication.k8s.io/v1", "certificates.k8s.io/v1",
}

func kubeVersion(v string) (KubeVersion, error) {
	parsed, err := semver.NewVersion(v)
	if err != nil {
		return KubeVersion{}, fmt.Errorf("invalid kube version %q: %w", v, err)
	}
	return KubeVersion{Version: "v" + parsed.String(), Major: fmt.Sprint(parsed.Major()),
		Minor: fmt.Sprint(parsed.Minor())}, nil
}

// userValues: the -f files merged in order, then --set.
func userValues(o options) (Values, error) {
	values := Values{}
	for _, file := range o.valueFiles {
		if _, err := os.Stat(file); err != nil {
			return nil, err
		}
		v, err := readYAMLMap(file)
		if err != nil {
			return nil, err
		}
		values = mergeMaps(values, v)
	}
	for _, s := range o.sets {
		if err := applySet(values, s); err != nil {
			return nil, fmt.Errorf("failed parsing --set data: %w", err)
		}
	}
	return values, nil
}

// topValues: what a template's "." is.
func topValues(chart *Chart, release string, o options, values Values) (Values, error) {
	kv, err := kubeVersion(o.kubeVersion)
	if err != nil {
		return nil, err
	}
	if chart.Metadata.KubeVersion != "" {
		c, err := semver.NewConstraint(chart.Metadata.KubeVersion)
		if err != nil {
			return nil, fmt.Errorf("chart.metadata.kubeVersion %q is invalid: %w", chart.Metadata.KubeVersion, err)
		}
		if v, _ := semver.NewVersion(kv.Version); !c.Check(v) {
			return nil, fmt.Errorf("chart requires kubeVersion: %s which is incompatible with Kubernetes %s",
				chart.Metadata.KubeVersion, kv.Version)
		}
	}
	return Values{
		"Values": values,
		"Chart":  chart.Metadata,
		"Files":  Files(chart.Files),
		"Release": map[string]interface{}{
			"Name": release, "Namespace": o.namespace, "IsUpgrade": false, "IsInstall": true,
			"Revision": 1, "Service": "Helm",
		},
		"Capabilities": map[string]interface{}{
			"KubeVersion": kv, "APIVersions": builtinAPIVersions,
			"HelmVersion": map[string]interface{}{"Version": "v3"},
		},
		"Subcharts": map[string]interface{}{},
	}, nil
}

func render(release, dir string, o options) (string, error) {
	chart, err := loadChart(dir)
	if err != nil {
		return "", err
	}
	user, err := userValues(o)
	if err != nil {
		return "", err
	}
	values := coalesce(user, chart.Values)
	if err := validateValues(chart, values); err != nil {
		return "", err
	}
	top, err := topValues(chart, release, o, values)
	if err != nil {
		return "", err
	}
	rendered, err := Engine{Strict: o.strict}.Render(chart, top)
	if err != nil {
		return "", err
	}
	manifests, err := manifestsOf(rendered)
	if err != nil {
		return "", err
	}
	return printManifests(manifests), nil
}

// lint returns helm lint's findings (release "test-release", LintMode: required and fail pass).
func lint(dir string, o options) ([]Finding, error) {
	chart, err := loadChart(dir)
	if err != nil {
		return nil, err
	}
	findings := lintChartfile(chart.Metadata)
	user, err := userValues(o)
	if err != nil {
		return nil, err
	}
	values := coalesce(user, chart.Values)
	if err := schemaErrors(chart, values); err != nil {
		return append(findings, Finding{"ERROR", "values.yaml", err.Error()}), nil
	}
	top, err := topValues(chart, "test-release", o, values)
	if err != nil {
		return append(findings, Finding{"ERROR", "templates/", err.Error()}), nil
	}
	rendered, err := Engine{Strict: o.strict, LintMode: true}.Render(chart, top)
	if err != nil {
		return append(findings, Finding{"ERROR", "templates/", err.Error()}), nil
	}
	return append(findings, lintRendered(chart, rendered)...), nil
}

// parseInterspersed lets flags follow the arguments, as helm's command line does.
func parseInterspersed() []string {
	var args []string
	rest := os.Args[1:]
	for {
		if err := flag.CommandLine.Parse(rest); err != nil {
			os.Exit(2)
		}
		rest = flag.Args()
		if len(rest) == 0 {
			return args
		}
		args = append(args, rest[0])
		rest = rest[1:]
	}
}

func main() {
	var o options
	flag.StringVar(&o.namespace, "namespace", "default", "the release namespace")
	flag.StringVar(&o.namespace, "n", "default", "the release namespace (shorthand)")
	flag.StringVar(&o.kubeVersion, "kube-version", "v1.33.0", "Capabilities.KubeVersion")
	flag.Var(&o.valueFiles, "f", "a values file (repeatable; later files win)")
	flag.Var(&o.valueFiles, "values", "a values file (repeatable; later files win)")
	flag.Var(&o.sets, "set", "key=value assignments (repeatable; win over -f)")
	flag.BoolVar(&o.strict, "strict", false, "fail on a reference to a missing value")
	flag.BoolVar(&o.lint, "lint", false, "lint CHART instead of rendering")
	flag.BoolVar(&o.valuesRead, "values-read", false, "list the values paths CHART's templates read")
	args := parseInterspersed()
	if o.lint && len(args) == 1 {
		findings, err := lint(args[0], o)
		if err != nil {
			fmt.Fprintf(os.Stderr, "Error: %s\n", err)
			os.Exit(1)
		}
		failed := 0
		fmt.Printf("==> Linting %s\n", args[0])
		for _, f := range findings {
			fmt.Println(f)
			if f.Severity == "ERROR" {
				failed = 1
			}
		}
		fmt.Printf("\n1 chart(s) linted, %d chart(s) failed\n", failed)
		os.Exit(failed)
	}
	if o.valuesRead && len(args) == 1 {
		chart, err := loadChart(args[0])
		if err == nil {
			var paths []string
			if paths, err = valuesRead(chart); err == nil {
				fmt.Println(strings.Join(paths, "\n"))
				return
			}
		}
		fmt.Fprintf(os.Stderr, "Error: %s\n", err)
		os.Exit(1)
	}
	if o.lint || o.valuesRead || len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: helm-render [flags] NAME CHART | helm-render --lint [flags] CHART | helm-render --values-read CHART")
		flag.PrintDefaults()
		os.Exit(2)
	}
	out, err := render(args[0], args[1], o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "Error: %s\n", err)
		os.Exit(1)
	}
	fmt.Print(out)
}
