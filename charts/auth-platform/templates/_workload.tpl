{{/*
Workload objects shared by every component. Each takes (dict "root" $ "component" "<name>"), where
<name> is a top-level values key (gateway, identity, session, notification, oauth, organization, admin, sso, web). The
gateway and the web app speak HTTP; every other component speaks gRPC over mutual TLS and answers grpc.health.v1 in plaintext on a separate
port (GRPC_HEALTH_PORT, probes.grpcHealthPort), which the kubelet's native gRPC probe calls: the probe
cannot present a client certificate.
*/}}

{{/*
Whether a component is deployed (components without an "enabled" value always are).
*/}}
{{- define "auth-platform.enabled" -}}
{{- if dig "enabled" true (index .root.Values .component) }}true{{ end }}
{{- end }}

{{/*
One probe of a component: the HTTP GET <basePath>/ok for the gateway, the gRPC health check for the
services. Takes (dict "root" $ "component" "<name>" "timing" <probes.liveness|readiness|startup>).
*/}}
{{- define "auth-platform.probe" -}}
{{- if eq .component "gateway" }}
httpGet:
  path: {{ printf "%s/ok" (trimSuffix "/" .root.Values.config.basePath) }}
  port: http
{{- else if eq .component "web" }}
httpGet:
  path: /healthz
  port: http
{{- else }}
grpc:
  port: {{ .root.Values.probes.grpcHealthPort | int }}
  {{- if .readiness }}
  # NOT_SERVING while the service's database does not answer (the process itself stays live).
  service: readiness
  {{- end }}
{{- end }}
periodSeconds: {{ .timing.periodSeconds }}
timeoutSeconds: {{ .timing.timeoutSeconds }}
failureThreshold: {{ .timing.failureThreshold }}
{{- end }}

{{/*
The container environment a component needs besides the ConfigMap: the secret keys its process reads
(never another component's), its bind address, its health port, and the TLS setting.
*/}}
{{- define "auth-platform.containerEnv" -}}
{{- $root := .root }}
{{- $secretName := include "auth-platform.secretName" $root }}
{{- range $key, $optional := include "auth-platform.secretKeys" . | fromYaml }}
- name: {{ $key }}
  valueFrom:
    secretKeyRef:
      name: {{ $secretName }}
      key: {{ $key }}
      {{- if $optional }}
      optional: true
      {{- end }}
{{- end }}
{{- if eq .component "gateway" }}
# Pods are reached on their pod IP: bind every interface.
- name: HOST
  value: "0.0.0.0"
{{- else if eq .component "web" }}
{{- if eq (trimSuffix "/" $root.Values.config.basePath) "" }}
{{- fail "config.basePath must not be / while web.enabled: the web app serves every path but the API's (its server stops on AUTH_BASE_PATH=/)" }}
{{- end }}
# The web app's server: static files, and the API path passed on to the gateway's Service (the Ingress
# sends that path to the gateway directly; this covers a port-forward or a Service of type LoadBalancer).
- name: WEB_HOST
  value: "0.0.0.0"
- name: WEB_PORT
  value: {{ $root.Values.web.port | int64 | quote }}
- name: AUTH_GATEWAY_URL
  value: {{ printf "http://%s.%s.svc.%s:%d" (include "auth-platform.componentName" (dict "root" $root "component" "gateway")) $root.Release.Namespace (trimSuffix "." $root.Values.clusterDomain) (int $root.Values.gateway.port) | quote }}
{{- with $root.Values.web.analyticsPath }}
# The analytics script (WEB_ANALYTICS_PATH): a path on the app's host, written into index.html as a script tag. The
# API's base path comes from the ConfigMap's AUTH_BASE_PATH, the gateway's own.
- name: WEB_ANALYTICS_PATH
  value: {{ . | quote }}
{{- end }}
{{- else }}
- name: GRPC_HOST
  value: "0.0.0.0"
- name: GRPC_HEALTH_PORT
  value: {{ $root.Values.probes.grpcHealthPort | int64 | quote }}
{{- if include "auth-platform.hasDatabase" .component }}
# Migrations run in the pre-install/pre-upgrade Job, not at every pod start.
- name: MIGRATIONS
  value: {{ ternary "skip" "run" $root.Values.migrations.job.enabled | quote }}
{{- end }}
{{- end }}
# glibc's allocator (PROCESS_ENV in deploy/processes.ts): one malloc arena for all threads, and blocks of
# 128 KiB and more returned to the kernel when freed: 3 to 6 MiB less idle RSS, the same CPU. identity adds
# transparent huge pages for the 32 MiB each scrypt derivation allocates: about 14 % less CPU per
# derivation where the node's THP mode is madvise or always, a no-op elsewhere.
- name: GLIBC_TUNABLES
  value: {{ printf "%sglibc.malloc.arena_max=1:glibc.malloc.mmap_threshold=131072" (ternary "glibc.malloc.hugetlb=1:" "" (eq .component "identity")) | quote }}
{{- if has .component (list "gateway" "session") }}
{{- with $root.Values.redis.clusterNodes }}
# A Redis Cluster (redis.clusterNodes): the nodes first asked for the slot map.
- name: REDIS_CLUSTER_NODES
  value: {{ . | quote }}
{{- end }}
{{- with $root.Values.redis.sentinels }}
# A primary found through Sentinel (redis.sentinels, redis.sentinelName).
- name: REDIS_SENTINELS
  value: {{ . | quote }}
- name: REDIS_SENTINEL_NAME
  value: {{ $root.Values.redis.sentinelName | quote }}
{{- end }}
{{- if $root.Values.redis.tls.enabled }}
- name: REDIS_TLS
  value: "true"
{{- end }}
{{- end }}
{{- if include "auth-platform.redisCa" . }}
# The CA of the Redis server's certificate (redis.tls.caSecret), mounted below.
- name: REDIS_TLS_CA_FILE
  value: {{ printf "%s/ca.crt" (include "auth-platform.redisCaDir" $root) | quote }}
{{- end }}
{{- if $root.Values.metrics.enabled }}
- name: METRICS_PORT
  value: {{ $root.Values.metrics.port | int64 | quote }}
{{- end }}
{{- if ne .component "web" }}
{{- include "auth-platform.tlsEnv" $root }}
{{- end }}
{{- end }}

{{/*
Whether a component reads Redis and is given the CA of its server (redis.tls.caSecret): gateway and session.
*/}}
{{- define "auth-platform.redisCa" -}}
{{- if and .root.Values.redis.tls.caSecret (has .component (list "gateway" "session")) }}true{{ end }}
{{- end }}

{{- define "auth-platform.redisCaDir" -}}/etc/auth-platform/redis-tls{{- end }}

{{/*
Whether a component has a database of its own with migrations (and so a migration Job). The gateway's
rate-limit database holds one table, which the gateway creates itself at start.
*/}}
{{- define "auth-platform.hasDatabase" -}}
{{- if ne . "gateway" }}true{{ end }}
{{- end }}

{{/*
Secret keys each process reads, as <key>: <optional>. Optional keys may be missing from
secret.existingSecret (the REDIS_* keys, SMTP_URL, IDENTITY_TWO_FACTOR_KEYS, the built-in providers' credentials) and are left out of the chart's Secret when not set.
*/}}
{{- define "auth-platform.secretKeys" -}}
{{- if eq .component "gateway" }}
AUTH_SECRET: false
REDIS_URL: true
REDIS_USERNAME: true
REDIS_PASSWORD: true
{{- if include "auth-platform.rateLimitInDatabase" .root }}
RATE_LIMIT_DATABASE_URL: false
{{- end }}
{{- else if eq .component "identity" }}
AUTH_SECRET: false
IDENTITY_DATABASE_URL: false
IDENTITY_TWO_FACTOR_KEYS: true
{{- else if eq .component "session" }}
AUTH_SECRET: false
SESSION_DATABASE_URL: false
REDIS_URL: true
REDIS_USERNAME: true
REDIS_PASSWORD: true
{{- else if eq .component "notification" }}
AUTH_SECRET: false
NOTIFICATION_DATABASE_URL: false
SMTP_URL: true
{{- else if eq .component "organization" }}
ORGANIZATION_DATABASE_URL: false
{{- else if eq .component "admin" }}
ADMIN_DATABASE_URL: false
{{- else if eq .component "sso" }}
AUTH_SECRET: false
SSO_DATABASE_URL: false
{{- else if eq .component "oauth" }}
OAUTH_DATABASE_URL: false
{{- range $provider := list "apple" "discord" "facebook" "github" "microsoft" "google" "spotify" "twitch" "twitter" "dropbox" "linkedin" "gitlab" "reddit" }}
{{ upper $provider }}_CLIENT_ID: true
{{ upper $provider }}_CLIENT_SECRET: true
{{- end }}
{{- /* A generic provider is listed on purpose: its credentials must be there. */}}
{{- range .root.Values.oauth.genericProviders }}
{{ include "auth-platform.genericPrefix" .id }}CLIENT_ID: false
{{ include "auth-platform.genericPrefix" .id }}CLIENT_SECRET: false
{{- end }}
{{- end }}
{{- end }}

{{/* `OAUTH_GENERIC_<ID>_`: the prefix of a generic provider's variables (services/oauth/src/config.ts, genericPrefix). */}}
{{- define "auth-platform.genericPrefix" -}}
OAUTH_GENERIC_{{ . | upper | replace "-" "_" }}_
{{- end }}

{{- define "auth-platform.deployment" -}}
{{- if include "auth-platform.enabled" . }}
{{- $root := .root }}
{{- $values := index $root.Values .component }}
{{- $ctx := dict "root" $root "component" .component }}
{{- $portName := ternary "http" "grpc" (has .component (list "gateway" "web")) }}
{{- $grpc := not (has .component (list "gateway" "web")) }}
{{- $tls := and $root.Values.tls.enabled (ne .component "web") }}
{{- if and $grpc (eq (int $values.port) (int $root.Values.probes.grpcHealthPort)) }}
{{- fail (printf "probes.grpcHealthPort (%d) must differ from %s.port: the health port serves plaintext grpc.health.v1 only" (int $root.Values.probes.grpcHealthPort) .component) }}
{{- end }}
{{- if $root.Values.metrics.enabled }}
{{- $metricsPort := int $root.Values.metrics.port }}
{{- if or (eq $metricsPort (int $values.port)) (and $grpc (eq $metricsPort (int $root.Values.probes.grpcHealthPort))) }}
{{- fail (printf "metrics.port (%d) must differ from %s.port and probes.grpcHealthPort" $metricsPort .component) }}
{{- end }}
{{- end }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "auth-platform.componentName" $ctx }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "auth-platform.componentLabels" $ctx | nindent 4 }}
spec:
  {{- if not $values.autoscaling.enabled }}
  replicas: {{ $values.replicaCount }}
  {{- end }}
  revisionHistoryLimit: 10
  selector:
    matchLabels:
      {{- include "auth-platform.selectorLabels" $ctx | nindent 6 }}
  template:
    metadata:
      annotations:
        {{- with $root.Values.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
        # Roll the pods when their configuration changes (an existingSecret's content is not seen).
        # The Secret is hashed as rendered, its random AUTH_SECRET included, so the annotation offers
        # no shortcut for guessing a weak password.
        checksum/config: {{ include (print $root.Template.BasePath "/configmap_auth-platform.yaml") $root | sha256sum }}
        checksum/secret: {{ include (print $root.Template.BasePath "/secret_auth-platform.yaml") $root | sha256sum }}
      labels:
        {{- include "auth-platform.componentLabels" $ctx | nindent 8 }}
        {{- with $root.Values.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      {{- with $root.Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $root.Values.serviceAccountName }}
      serviceAccountName: {{ . }}
      {{- end }}
      # No component calls the Kubernetes API.
      automountServiceAccountToken: false
      # Service links would inject <SERVICE>_PORT=tcp://... variables, which can shadow IDENTITY_PORT
      # or SESSION_PORT when a Service bears such a name.
      enableServiceLinks: false
      terminationGracePeriodSeconds: {{ $root.Values.terminationGracePeriodSeconds }}
      securityContext:
        {{- toYaml $root.Values.podSecurityContext | nindent 8 }}
      containers:
        - name: {{ .component }}
          image: {{ include "auth-platform.image" $root | quote }}
          imagePullPolicy: {{ $root.Values.image.pullPolicy }}
          command:
            {{- toYaml $values.command | nindent 12 }}
          ports:
            - name: {{ $portName }}
              containerPort: {{ $values.port | int }}
              protocol: TCP
            {{- if $grpc }}
            # Plaintext grpc.health.v1 only, for the kubelet's probes; not part of the Service.
            - name: grpc-health
              containerPort: {{ $root.Values.probes.grpcHealthPort | int }}
              protocol: TCP
            {{- end }}
            {{- if $root.Values.metrics.enabled }}
            # Prometheus /metrics, plain HTTP; only the metrics Service (never the gateway's) exposes it.
            - name: metrics
              containerPort: {{ $root.Values.metrics.port | int }}
              protocol: TCP
            {{- end }}
          envFrom:
            - configMapRef:
                name: {{ include "auth-platform.configMapName" $root }}
          # The extra env of values comes last and wins.
          env:
            {{- include "auth-platform.containerEnv" $ctx | nindent 12 }}
            {{- with concat $root.Values.env $values.env }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          {{- with $root.Values.preStopSleepSeconds }}
          # Serves on while the pod leaves every copy of its Service's endpoints; SIGTERM (the drain) comes after.
          lifecycle:
            preStop:
              exec:
                command: ["sleep", {{ . | quote }}]
          {{- end }}
          {{- if $root.Values.probes.startup.enabled }}
          startupProbe:
            {{- include "auth-platform.probe" (merge (dict "timing" $root.Values.probes.startup) $ctx) | trim | nindent 12 }}
          {{- end }}
          {{- if $root.Values.probes.liveness.enabled }}
          livenessProbe:
            {{- include "auth-platform.probe" (merge (dict "timing" $root.Values.probes.liveness) $ctx) | trim | nindent 12 }}
          {{- end }}
          {{- if $root.Values.probes.readiness.enabled }}
          readinessProbe:
            {{- include "auth-platform.probe" (merge (dict "timing" $root.Values.probes.readiness "readiness" true) $ctx) | trim | nindent 12 }}
          {{- end }}
          resources:
            {{- toYaml $values.resources | nindent 12 }}
          securityContext:
            {{- toYaml $root.Values.securityContext | nindent 12 }}
          volumeMounts:
            # The root file system is read-only; the runtime writes temporary files here.
            - name: tmp
              mountPath: /tmp
            {{- if $tls }}
            # The whole Secret, never a subPath: the kubelet then swaps renewed certificates in and
            # the process re-reads them, without a restart.
            - name: tls
              mountPath: {{ include "auth-platform.tlsDir" $root }}
              readOnly: true
            {{- end }}
            {{- if include "auth-platform.redisCa" $ctx }}
            - name: redis-tls
              mountPath: {{ include "auth-platform.redisCaDir" $root }}
              readOnly: true
            {{- end }}
      volumes:
        - name: tmp
          emptyDir:
            sizeLimit: {{ $root.Values.tmpVolume.sizeLimit }}
        {{- if $tls }}
        - name: tls
          secret:
            secretName: {{ include "auth-platform.tlsSecretName" $ctx }}
            # 0440: readable by the pod's group (fsGroup), not by others.
            defaultMode: 288
        {{- end }}
        {{- if include "auth-platform.redisCa" $ctx }}
        - name: redis-tls
          secret:
            secretName: {{ $root.Values.redis.tls.caSecret }}
            items:
              - key: {{ $root.Values.redis.tls.caKey }}
                path: ca.crt
            defaultMode: 288
        {{- end }}
      {{- with $root.Values.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $root.Values.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $root.Values.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- if $root.Values.topologySpreadConstraints }}
      topologySpreadConstraints:
        {{- toYaml $root.Values.topologySpreadConstraints | nindent 8 }}
      {{- else if $root.Values.topologySpread.enabled }}
      # Spread this component's pods over nodes and zones, as a preference.
      topologySpreadConstraints:
        {{- range $key := $root.Values.topologySpread.topologyKeys }}
        - maxSkew: {{ $root.Values.topologySpread.maxSkew }}
          topologyKey: {{ $key }}
          whenUnsatisfiable: ScheduleAnyway
          labelSelector:
            matchLabels:
              {{- include "auth-platform.selectorLabels" $ctx | nindent 14 }}
        {{- end }}
      {{- end }}
{{- end }}
{{- end }}

{{- define "auth-platform.service" -}}
{{- if include "auth-platform.enabled" . }}
{{- $root := .root }}
{{- $values := index $root.Values .component }}
{{- $ctx := dict "root" $root "component" .component }}
{{- $portName := ternary "http" "grpc" (has .component (list "gateway" "web")) }}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "auth-platform.componentName" $ctx }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "auth-platform.componentLabels" $ctx | nindent 4 }}
  {{- with $values.service.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  type: {{ $values.service.type }}
  {{- if and (has .component (list "gateway" "web")) (ne $values.service.type "ClusterIP") }}
  # With Cluster, kube-proxy rewrites the source of outside traffic to a node's private address, which the
  # gateway trusts as a proxy by default: it would then take the client's own X-Forwarded-For as its
  # rate-limit key. Local keeps the client's address as the source.
  externalTrafficPolicy: {{ $values.service.externalTrafficPolicy }}
  {{- end }}
  {{- if and (not (has .component (list "gateway" "web"))) $values.service.headless }}
  {{- if ne $values.service.type "ClusterIP" }}
  {{- fail (printf "%s.service.headless needs service.type ClusterIP (it is %s): set headless to false for a %s Service" .component $values.service.type $values.service.type) }}
  {{- end }}
  # Headless: DNS answers every ready pod, so the gRPC clients (one long-lived HTTP/2 connection per
  # address) balance their calls over all pods instead of pinning them to one behind a virtual IP.
  clusterIP: None
  {{- end }}
  selector:
    {{- include "auth-platform.selectorLabels" $ctx | nindent 4 }}
  ports:
    - name: {{ $portName }}
      port: {{ $values.port | int }}
      targetPort: {{ $portName }}
      protocol: TCP
      appProtocol: {{ $portName }}
{{- end }}
{{- end }}

{{- define "auth-platform.hpa" -}}
{{- $values := index .root.Values .component }}
{{- if and (include "auth-platform.enabled" .) $values.autoscaling.enabled }}
{{- $root := .root }}
{{- $ctx := dict "root" $root "component" .component }}
{{- $scaling := $values.autoscaling }}
{{- if not (or $scaling.targetCPUUtilizationPercentage $scaling.targetMemoryUtilizationPercentage $scaling.metrics) }}
{{- fail (printf "%s.autoscaling: give a CPU or memory target or metrics" .component) }}
{{- end }}
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ include "auth-platform.componentName" $ctx }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "auth-platform.componentLabels" $ctx | nindent 4 }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ include "auth-platform.componentName" $ctx }}
  minReplicas: {{ $scaling.minReplicas }}
  maxReplicas: {{ $scaling.maxReplicas }}
  metrics:
    {{- with $scaling.targetCPUUtilizationPercentage }}
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ . }}
    {{- end }}
    {{- with $scaling.targetMemoryUtilizationPercentage }}
    - type: Resource
      resource:
        name: memory
        target:
          type: Utilization
          averageUtilization: {{ . }}
    {{- end }}
    {{- with $scaling.metrics }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- with $scaling.behavior }}
  behavior:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
{{- end }}

{{- define "auth-platform.pdb" -}}
{{- $values := index .root.Values .component }}
{{- if and (include "auth-platform.enabled" .) $values.pdb.enabled }}
{{- $root := .root }}
{{- $ctx := dict "root" $root "component" .component }}
{{- $pdb := $values.pdb }}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "auth-platform.componentName" $ctx }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "auth-platform.componentLabels" $ctx | nindent 4 }}
spec:
  {{- if not (kindIs "invalid" $pdb.minAvailable) }}
  minAvailable: {{ $pdb.minAvailable | toJson }}
  {{- else if not (kindIs "invalid" $pdb.maxUnavailable) }}
  maxUnavailable: {{ $pdb.maxUnavailable | toJson }}
  {{- else }}
  {{- fail (printf "%s.pdb: set minAvailable or maxUnavailable" .component) }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "auth-platform.selectorLabels" $ctx | nindent 6 }}
{{- end }}
{{- end }}

{{/*
The pre-install/pre-upgrade Job that checks (`migrate --check`) then runs a component's database
migrations (`node dist/<svc>.js migrate`), so pods never migrate at start (they run with MIGRATIONS=skip and refuse to start while one is
pending). It runs before the release's ConfigMap and Secret exist on a first install: it gets the
ConfigMap's data inline and its secret keys from the hook Secret (or secret.existingSecret).
*/}}
{{- define "auth-platform.migrationJob" -}}
{{- if and (include "auth-platform.enabled" .) .root.Values.migrations.job.enabled (include "auth-platform.hasDatabase" .component) }}
{{- $root := .root }}
{{- $values := index $root.Values .component }}
{{- $ctx := dict "root" $root "component" .component }}
{{- $job := $root.Values.migrations.job }}
{{- $secretName := $root.Values.secret.existingSecret | default (include "auth-platform.migrationSecretName" $root) }}
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ printf "%s-migrate" (include "auth-platform.componentName" $ctx) | trunc 63 | trimSuffix "-" }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "auth-platform.labels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ printf "%s-migrate" .component }}
  annotations:
    "helm.sh/hook": pre-install,pre-upgrade
    "helm.sh/hook-weight": "0"
    "helm.sh/hook-delete-policy": before-hook-creation,hook-succeeded
spec:
  backoffLimit: {{ $job.backoffLimit }}
  activeDeadlineSeconds: {{ $job.activeDeadlineSeconds }}
  ttlSecondsAfterFinished: {{ $job.ttlSecondsAfterFinished }}
  template:
    metadata:
      labels:
        {{- include "auth-platform.labels" $root | nindent 8 }}
        app.kubernetes.io/component: {{ printf "%s-migrate" .component }}
    spec:
      restartPolicy: Never
      {{- with $root.Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $root.Values.serviceAccountName }}
      serviceAccountName: {{ . }}
      {{- end }}
      automountServiceAccountToken: false
      enableServiceLinks: false
      securityContext:
        {{- toYaml $root.Values.podSecurityContext | nindent 8 }}
      # The check first (docs/upgrades.md): it fails the Job, before anything runs, when the release still
      # serving could not run beside this one on the migrated schema; then the migrations.
      initContainers:
        {{- include "auth-platform.migrationContainer" (dict "root" $root "component" .component "name" "check" "args" (list "migrate" "--check")) | nindent 8 }}
      containers:
        {{- include "auth-platform.migrationContainer" (dict "root" $root "component" .component "name" "migrate" "args" (list "migrate")) | nindent 8 }}
      volumes:
        - name: tmp
          emptyDir:
            sizeLimit: {{ $root.Values.tmpVolume.sizeLimit }}
      {{- with $root.Values.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $root.Values.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end }}
{{- end }}

{{/*
One container of a migration Job: the service's image and settings, running `migrate` with `.args`.
*/}}
{{- define "auth-platform.migrationContainer" -}}
{{- $root := .root }}
{{- $values := index $root.Values .component }}
{{- $ctx := dict "root" $root "component" .component }}
{{- $job := $root.Values.migrations.job }}
{{- $secretName := $root.Values.secret.existingSecret | default (include "auth-platform.migrationSecretName" $root) }}
- name: {{ .name }}
  image: {{ include "auth-platform.image" $root | quote }}
  imagePullPolicy: {{ $root.Values.image.pullPolicy }}
  command:
    {{- toYaml $values.command | nindent 4 }}
  args: {{ toJson .args }}
  env:
    {{- range $key, $value := (include (print $root.Template.BasePath "/configmap_auth-platform.yaml") $root | fromYaml).data }}
    - name: {{ $key }}
      value: {{ $value | quote }}
    {{- end }}
    {{- range $key, $optional := include "auth-platform.secretKeys" $ctx | fromYaml }}
    - name: {{ $key }}
      valueFrom:
        secretKeyRef:
          name: {{ $secretName }}
          key: {{ $key }}
          {{- if $optional }}
          optional: true
          {{- end }}
    {{- end }}
    # The Job serves no gRPC (it exits once migrated) and mounts no certificate, which on a first
    # install does not exist yet; this only satisfies the production check of the gRPC settings.
    - name: GRPC_INSECURE
      value: "true"
    {{- with concat $root.Values.env $values.env }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  resources:
    {{- toYaml $job.resources | nindent 4 }}
  securityContext:
    {{- toYaml $root.Values.securityContext | nindent 4 }}
  volumeMounts:
    - name: tmp
      mountPath: /tmp
{{- end }}

{{/*
The metrics Service of a component: headless, the metrics port only, for the ServiceMonitor. The
component's own Service (the gateway's public one included) never exposes the metrics port.
*/}}
{{- define "auth-platform.metricsService" -}}
{{- if and (include "auth-platform.enabled" .) .root.Values.metrics.enabled }}
{{- $root := .root }}
{{- $ctx := dict "root" $root "component" .component }}
apiVersion: v1
kind: Service
metadata:
  name: {{ printf "%s-metrics" (include "auth-platform.componentName" $ctx) | trunc 63 | trimSuffix "-" }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "auth-platform.componentLabels" $ctx | nindent 4 }}
    auth-platform/metrics: "true"
spec:
  type: ClusterIP
  clusterIP: None
  selector:
    {{- include "auth-platform.selectorLabels" $ctx | nindent 4 }}
  ports:
    - name: metrics
      port: {{ $root.Values.metrics.port | int }}
      targetPort: metrics
      protocol: TCP
{{- end }}
{{- end }}
