{{/* Labels that select the pods; identical to deploy/deployment.yaml. */}}
{{- define "ccm4j.selectorLabels" -}}
app.kubernetes.io/name: ccm4j
app.kubernetes.io/component: cloud-controller-manager
{{- end }}

{{/* Helm's bookkeeping labels, on metadata only (never in selectors). */}}
{{- define "ccm4j.helmLabels" -}}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end }}

{{- define "ccm4j.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{/*
Non-empty when --controllers enables ccm4j's node-lifecycle controller: "*" does not include it, and
the first entry naming it (enabled, or disabled with "-") decides, as in ControllerSelection.
*/}}
{{- define "ccm4j.nodeLifecycleEnabled" -}}
{{- $decided := "" -}}
{{- range splitList "," (.Values.controllers | toString) -}}
{{- $entry := trim . -}}
{{- if and (not $decided) (has $entry (list "node-lifecycle" "node-lifecycle-controller")) -}}
{{- $decided = "on" -}}
{{- else if and (not $decided) (has $entry (list "-node-lifecycle" "-node-lifecycle-controller")) -}}
{{- $decided = "off" -}}
{{- end -}}
{{- end -}}
{{- if eq $decided "on" }}true{{ end -}}
{{- end }}
