// From rendered templates to the manifests `helm template` prints: each file split at "---",
// empty documents dropped, NOTES.txt left out, every document parsed (a YAML error names its
// file), ordered as Helm installs them (by kind, unknown kinds last by name).
package main

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

type Head struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name        string            `json:"name"`
		Namespace   string            `json:"namespace"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
}

type Manifest struct {
	Source  string // "tailor/templates/x.yaml"
	Content string
	Head    Head
}

var separator = regexp.MustCompile(`(?:^|\s*\n)---\s*`)

// Helm's InstallOrder.
var installOrder = []string{
	"PriorityClass", "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange",
	"PodSecurityPolicy", "PodDisruptionBudget", "ServiceAccount", "Secret", "SecretList",
	"ConfigMap", "StorageClass", "PersistentVolume", "PersistentVolumeClaim",
	"CustomResourceDefinition", "ClusterRole", "ClusterRoleList", "ClusterRoleBinding",
	"ClusterRoleBindingList", "Role", "RoleList", "RoleBinding", "RoleBindingList", "Service",
	"DaemonSet", "Pod", "ReplicationController", "ReplicaSet", "Deployment",
	"HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob", "IngressClass", "Ingress",
	"APIService", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration",
}

func splitManifests(text string) []string {
	var out []string
	for _, doc := range separator.Split(strings.TrimSpace(text), -1) {
		if doc = strings.TrimSpace(doc); doc != "" {
			out = append(out, doc)
		}
	}
	return out
}

func manifestsOf(rendered map[string]string) ([]Manifest, error) {
	names := make([]string, 0, len(rendered))
	for name := range rendered {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []Manifest
	for _, name := range names {
		if path.Base(name) == "NOTES.txt" {
			continue
		}
		for _, doc := range splitManifests(rendered[name]) {
			m := Manifest{Source: name, Content: doc}
			if err := yaml.Unmarshal([]byte(doc), &m.Head); err != nil {
				return nil, fmt.Errorf("YAML parse error on %s: %w", name, err)
			}
			if _, hook := m.Head.Metadata.Annotations["helm.sh/hook"]; hook {
				return nil, fmt.Errorf("%s: hooks are not supported by this renderer", name)
			}
			out = append(out, m)
		}
	}
	rank := map[string]int{}
	for i, kind := range installOrder {
		rank[kind] = i
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, aok := rank[out[i].Head.Kind]
		b, bok := rank[out[j].Head.Kind]
		switch {
		case !aok && !bok:
			return out[i].Head.Kind < out[j].Head.Kind
		case !aok:
			return false
		case !bok:
			return true
		}
		return a < b
	})
	return out, nil
}

func printManifests(ms []Manifest) string {
	var sb strings.Builder
	for _, m := range ms {
		fmt.Fprintf(&sb, "---\n# Source: %s\n%s\n", m.Source, m.Content)
	}
	return sb.String()
}
