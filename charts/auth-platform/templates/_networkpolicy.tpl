{{/*
NetworkPolicy of a component (values networkPolicy). Takes (dict "root" $ "component" "<name>").
Ingress follows the call graph: who calls the component's port. Egress is open unless
networkPolicy.egress.allowAll is false; then it follows the same graph the other way round, plus DNS,
networkPolicy.egress.extraRules (every component) and the component's networkPolicy.egress.componentRules.
*/}}

{{/*
Components that call a component's gRPC port (gRPC services only), as a YAML list.
*/}}
{{- define "auth-platform.callersOf" -}}
{{- if eq . "identity" }}[gateway, organization, admin, oauth, sso]
{{- else if eq . "session" }}[gateway, identity, organization, admin]
{{- else if eq . "notification" }}[gateway, identity, session, organization, admin]
{{- else if eq . "organization" }}[gateway, identity, sso]
{{- else if eq . "admin" }}[gateway]
{{- else if eq . "oauth" }}[gateway]
{{- else if eq . "sso" }}[gateway, identity]
{{- else }}[]
{{- end }}
{{- end }}

{{/*
Services a component calls, as a YAML list.
*/}}
{{- define "auth-platform.calleesOf" -}}
{{- if eq . "web" }}[gateway]
{{- else if eq . "gateway" }}[identity, session, notification, oauth, organization, admin, sso]
{{- else if eq . "identity" }}[session, notification, organization, sso]
{{- else if eq . "organization" }}[identity, session, notification]
{{- else if eq . "admin" }}[identity, session, notification]
{{- else if eq . "session" }}[notification]
{{- else if eq . "oauth" }}[identity]
{{- else if eq . "sso" }}[identity, organization]
{{- else }}[]
{{- end }}
{{- end }}

{{- define "auth-platform.networkPolicy" -}}
{{- if and .root.Values.networkPolicy.enabled (include "auth-platform.enabled" .) }}
{{- $root := .root }}
{{- $np := $root.Values.networkPolicy }}
{{- $values := index $root.Values .component }}
{{- $ctx := dict "root" $root "component" .component }}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "auth-platform.componentName" $ctx }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "auth-platform.componentLabels" $ctx | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- include "auth-platform.selectorLabels" $ctx | nindent 6 }}
  policyTypes:
    - Ingress
    {{- if not $np.egress.allowAll }}
    - Egress
    {{- end }}
  ingress:
    {{- if has .component (list "gateway" "web") }}
    # HTTP from the configured peers (and the helm test pod), or from anywhere.
    - ports:
        - port: http
          protocol: TCP
      {{- with $np.gateway.from }}
      from:
        {{- toYaml . | nindent 8 }}
        - podSelector:
            matchLabels:
              {{- include "auth-platform.selectorLabels" (dict "root" $root "component" "test") | nindent 14 }}
        {{- if and (eq $.component "gateway") (include "auth-platform.enabled" (dict "root" $root "component" "web")) }}
        # The web app's server passes the API path on to the gateway.
        - podSelector:
            matchLabels:
              {{- include "auth-platform.selectorLabels" (dict "root" $root "component" "web") | nindent 14 }}
        {{- end }}
      {{- end }}
    {{- else }}
    # gRPC (mTLS) from the components that call this service only.
    - ports:
        - port: grpc
          protocol: TCP
      from:
        {{- range $caller := include "auth-platform.callersOf" .component | fromYamlArray }}
        {{- if include "auth-platform.enabled" (dict "root" $root "component" $caller) }}
        - podSelector:
            matchLabels:
              {{- include "auth-platform.selectorLabels" (dict "root" $root "component" $caller) | nindent 14 }}
        {{- end }}
        {{- end }}
        {{- if and (eq .component "identity") $root.Values.adminBootstrap.enabled (include "auth-platform.enabled" (dict "root" $root "component" "admin")) }}
        # The admin bootstrap Job (admin certificate).
        - podSelector:
            matchLabels:
              {{- include "auth-platform.selectorLabels" (dict "root" $root "component" "admin-bootstrap") | nindent 14 }}
        {{- end }}
        {{- if has .component (list "identity" "session" "organization") }}
        {{- with $np.internalClients }}
        # Your own services (internal-client certificate).
        {{- toYaml . | nindent 8 }}
        {{- end }}
        {{- end }}
    {{- with $np.healthProbeFrom }}
    # The plaintext health port, for CNIs that filter the kubelet's traffic (node traffic is
    # otherwise always allowed).
    - ports:
        - port: grpc-health
          protocol: TCP
      from:
        {{- toYaml . | nindent 8 }}
    {{- end }}
    {{- end }}
    {{- if $root.Values.metrics.enabled }}
    # Prometheus scrapes: the metrics port from metrics.from, or from any source.
    - ports:
        - port: metrics
          protocol: TCP
      {{- with $root.Values.metrics.from }}
      from:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    {{- end }}
  {{- if not $np.egress.allowAll }}
  egress:
    # DNS.
    - ports:
        - port: 53
          protocol: UDP
        - port: 53
          protocol: TCP
      {{- with $np.egress.dnsTo }}
      to:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    {{- range $callee := include "auth-platform.calleesOf" .component | fromYamlArray }}
    {{- if include "auth-platform.enabled" (dict "root" $root "component" $callee) }}
    # gRPC to {{ $callee }}.
    - ports:
        - port: {{ (index $root.Values $callee).port | int }}
          protocol: TCP
      to:
        - podSelector:
            matchLabels:
              {{- include "auth-platform.selectorLabels" (dict "root" $root "component" $callee) | nindent 14 }}
    {{- end }}
    {{- end }}
    {{- with $np.egress.extraRules }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
    {{- with index $np.egress.componentRules .component }}
    # This component's own rules (networkPolicy.egress.componentRules).
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- end }}
{{- end }}
{{- end }}
