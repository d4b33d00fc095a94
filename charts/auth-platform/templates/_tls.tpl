{{/*
Mutual TLS of the internal gRPC API (values `tls`). Names follow the shared contract: GRPC_TLS_DIR holds
ca.crt, tls.crt and tls.key; a workload's identity is the URI SAN spiffe://auth-platform/<name>, and a
service's certificate also carries the DNS SAN <name>, which the clients check the server against.
*/}}

{{/*
Where every container finds its certificate (GRPC_TLS_DIR). Fixed, so the processes' configuration does
not depend on values.
*/}}
{{- define "auth-platform.tlsDir" -}}
/etc/auth-platform/tls
{{- end }}

{{/*
Name of a workload's TLS Secret: tls.existingSecrets.<component> without cert-manager, else the Secret its
Certificate writes. Takes (dict "root" $ "component" "identity"); "internal-client" is a workload too.
*/}}
{{- define "auth-platform.tlsSecretName" -}}
{{- $tls := .root.Values.tls }}
{{- if $tls.certManager.enabled }}
{{- printf "%s-%s-tls" (include "auth-platform.fullname" .root) .component }}
{{- else }}
{{- $name := index $tls.existingSecrets .component }}
{{- if not $name }}
{{- fail (printf "tls.existingSecrets.%s is required when tls.enabled is true and tls.certManager.enabled is false: the name of a Secret with ca.crt, tls.crt and tls.key for %s (or turn tls.certManager.enabled on)" .component .component) }}
{{- end }}
{{- $name }}
{{- end }}
{{- end }}

{{/*
issuerRef of the components' Certificates: the bootstrapped CA Issuer, else tls.certManager.issuerRef
(required then).
*/}}
{{- define "auth-platform.issuerRef" -}}
{{- $cm := .Values.tls.certManager }}
{{- if $cm.selfSignedCA.enabled }}
name: {{ include "auth-platform.fullname" . }}-ca
kind: Issuer
group: cert-manager.io
{{- else }}
{{- if not $cm.issuerRef.name }}
{{- fail "tls.certManager.issuerRef.name is required: mTLS is on by default and cert-manager needs an Issuer or ClusterIssuer that signs the components' certificates (and writes ca.crt). Set tls.certManager.issuerRef.name (and .kind), or tls.certManager.selfSignedCA.enabled=true for a CA of this release's own, or tls.certManager.enabled=false with tls.existingSecrets, or, for a throwaway cluster only, tls.enabled=false." }}
{{- end }}
name: {{ $cm.issuerRef.name }}
kind: {{ $cm.issuerRef.kind }}
group: {{ $cm.issuerRef.group }}
{{- end }}
{{- end }}

{{/*
A workload's cert-manager Certificate. Takes (dict "root" $ "component" "<name>" "server" <bool>): a server
(gRPC service) gets the DNS SAN <name> and server auth besides client auth; the gateway and
internal-client only make calls.
*/}}
{{- define "auth-platform.certificate" -}}
{{- $root := .root }}
{{- $cm := $root.Values.tls.certManager }}
{{- $ctx := dict "root" $root "component" .component }}
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: {{ include "auth-platform.componentName" $ctx }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "auth-platform.componentLabels" $ctx | nindent 4 }}
spec:
  secretName: {{ include "auth-platform.tlsSecretName" $ctx }}
  # cert-manager, not Helm, manages the Secret: label it as the component's, without managed-by.
  secretTemplate:
    labels:
      {{- include "auth-platform.selectorLabels" $ctx | nindent 6 }}
      app.kubernetes.io/part-of: {{ include "auth-platform.name" $root }}
  # The workload identity the services authorize each RPC by.
  uris:
    - spiffe://auth-platform/{{ .component }}
  {{- if .server }}
  # Clients verify the server against its service name (grpc.ssl_target_name_override), whatever the
  # cluster's DNS names.
  dnsNames:
    - {{ .component }}
  {{- end }}
  usages:
    - digital signature
    {{- if eq $cm.privateKey.algorithm "RSA" }}
    - key encipherment
    {{- end }}
    {{- if .server }}
    - server auth
    {{- end }}
    - client auth
  duration: {{ $cm.duration }}
  renewBefore: {{ $cm.renewBefore }}
  privateKey:
    algorithm: {{ $cm.privateKey.algorithm }}
    {{- if ne $cm.privateKey.algorithm "Ed25519" }}
    size: {{ $cm.privateKey.size | int }}
    {{- end }}
    encoding: PKCS8
    # A new key on every renewal.
    rotationPolicy: Always
  issuerRef:
    {{- include "auth-platform.issuerRef" $root | nindent 4 }}
{{- end }}

{{/*
The TLS part of a component's container environment: GRPC_TLS_DIR, or the explicit opt-out GRPC_INSECURE.
*/}}
{{- define "auth-platform.tlsEnv" -}}
{{- if .Values.tls.enabled }}
- name: GRPC_TLS_DIR
  value: {{ include "auth-platform.tlsDir" . | quote }}
{{- else }}
- name: GRPC_INSECURE
  value: "true"
{{- end }}
{{- end }}
