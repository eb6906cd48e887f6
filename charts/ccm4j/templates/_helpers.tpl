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
