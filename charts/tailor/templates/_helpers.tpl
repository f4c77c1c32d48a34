{{/* Names and labels shared by every template. */}}

{{- define "tailor.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The prefix of object names: the release name, or "tailor" when the release name already
contains it (so `helm install tailor` gives tailor-controller, not tailor-tailor-controller). */}}
{{- define "tailor.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 50 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "tailor.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "tailor.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: tailor
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Selector labels of one component ("controller" or "node-agent"): call with
(dict "root" $ "component" "controller"). */}}
{{- define "tailor.selectorLabels" -}}
app.kubernetes.io/name: {{ include "tailor.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "tailor.componentLabels" -}}
{{ include "tailor.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "tailor.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{- define "tailor.controller.fullname" -}}
{{ include "tailor.fullname" . }}-controller
{{- end }}

{{- define "tailor.nodeAgent.fullname" -}}
{{ include "tailor.fullname" . }}-node-agent
{{- end }}

{{- define "tailor.controller.serviceAccountName" -}}
{{ .Values.controller.serviceAccount.name | default (include "tailor.controller.fullname" .) }}
{{- end }}

{{- define "tailor.nodeAgent.serviceAccountName" -}}
{{ .Values.nodeAgent.serviceAccount.name | default (include "tailor.nodeAgent.fullname" .) }}
{{- end }}

{{- define "tailor.webhook.secretName" -}}
{{ .Values.webhook.certificate.secretName | default (printf "%s-webhook-tls" (include "tailor.fullname" .)) }}
{{- end }}

{{/* The Service the webhook, the usage stream and the metrics are reached through. */}}
{{- define "tailor.usage.secretName" -}}
{{ .Values.usage.certificate.secretName | default (printf "%s-usage-tls" (include "tailor.fullname" .)) }}
{{- end }}

{{- define "tailor.controller.serviceHost" -}}
{{ include "tailor.controller.fullname" . }}.{{ .Release.Namespace }}.svc
{{- end }}
