{{/* Chart name, possibly overridden. */}}
{{- define "fleetgate.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Full name: the release name when it contains the chart name, else "<release>-<chart>". */}}
{{- define "fleetgate.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "fleetgate.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "fleetgate.selectorLabels" -}}
app.kubernetes.io/name: {{ include "fleetgate.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "fleetgate.labels" -}}
helm.sh/chart: {{ include "fleetgate.chart" . }}
{{ include "fleetgate.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: admission-webhook
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "fleetgate.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "fleetgate.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "fleetgate.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* Where lookups come from: "" (off), "kubeconfig" or "inCluster". */}}
{{- define "fleetgate.lookupSource" -}}
{{- if .Values.lookups.enabled }}
{{- if .Values.controlPlane.kubeconfigSecret.name }}kubeconfig{{ else }}inCluster{{ end }}
{{- end }}
{{- end }}

{{/* The Secret with tls.crt and tls.key that the pods mount. */}}
{{- define "fleetgate.tlsSecretName" -}}
{{- if and (eq .Values.certificates.mode "user") .Values.certificates.user.secretName }}
{{- .Values.certificates.user.secretName }}
{{- else }}
{{- printf "%s-tls" (include "fleetgate.fullname" .) }}
{{- end }}
{{- end }}

{{/* The serving Certificate's name (cert-manager mode); the CA-injection annotation points at it. */}}
{{- define "fleetgate.certificateName" -}}
{{- printf "%s-serving" (include "fleetgate.fullname" .) }}
{{- end }}

{{/* DNS names of the Service, comma-separated, plus certificates.extraDNSNames. */}}
{{- define "fleetgate.dnsNames" -}}
{{- $svc := include "fleetgate.fullname" . }}
{{- $ns := .Release.Namespace }}
{{- $names := list $svc (printf "%s.%s" $svc $ns) (printf "%s.%s.svc" $svc $ns) (printf "%s.%s.svc.cluster.local" $svc $ns) }}
{{- concat $names .Values.certificates.extraDNSNames | join "," }}
{{- end }}

{{- define "fleetgate.webhookBaseURL" -}}
{{- if .Values.webhooks.clientConfig.url }}
{{- .Values.webhooks.clientConfig.url | trimSuffix "/" }}
{{- else }}
{{- printf "https://%s.%s.svc:%d" (include "fleetgate.fullname" .) .Release.Namespace (int .Values.service.port) }}
{{- end }}
{{- end }}
