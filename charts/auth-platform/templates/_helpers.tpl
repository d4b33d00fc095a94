{{/*
Chart name.
*/}}
{{- define "auth-platform.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Fully qualified name prefix; truncated to leave room for the longest component suffix
("-notification", 13 characters) within the 63-character limit of DNS names.
*/}}
{{- define "auth-platform.fullname" -}}
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

{{/*
Chart label value.
*/}}
{{- define "auth-platform.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Labels shared by every object.
*/}}
{{- define "auth-platform.labels" -}}
helm.sh/chart: {{ include "auth-platform.chart" . }}
app.kubernetes.io/name: {{ include "auth-platform.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: {{ include "auth-platform.name" . }}
{{- end }}

{{/*
Labels of a component's objects. Takes (dict "root" $ "component" "identity").
*/}}
{{- define "auth-platform.componentLabels" -}}
{{ include "auth-platform.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/*
Selector labels of a component (immutable in a Deployment: never add to these).
Takes (dict "root" $ "component" "identity").
*/}}
{{- define "auth-platform.selectorLabels" -}}
app.kubernetes.io/name: {{ include "auth-platform.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/*
Name of a component's Deployment, Service, HPA and PDB. Takes (dict "root" $ "component" "identity").
*/}}
{{- define "auth-platform.componentName" -}}
{{- printf "%s-%s" (include "auth-platform.fullname" .root) .component }}
{{- end }}

{{/*
In-cluster gRPC target of a component's Service: dns:///<service>.<namespace>.svc.<clusterDomain>:<port>.
The gRPC clients resolve it through DNS and balance round robin over every address; behind a headless
Service those are the ready pods. Takes (dict "root" $ "component" "identity").
*/}}
{{- define "auth-platform.serviceAddress" -}}
{{- $values := index .root.Values .component }}
{{- printf "dns:///%s.%s.svc.%s:%d" (include "auth-platform.componentName" .) .root.Release.Namespace (trimSuffix "." .root.Values.clusterDomain) (int $values.port) }}
{{- end }}

{{/*
Refuses a session service of several replicas without Redis: each replica would cache sessions in its own
memory, and a session revoked through one would stay valid on the others. (REDIS_URL may also come from
secret.existingSecret, which the chart cannot read.)
*/}}
{{- define "auth-platform.redisConfigured" -}}
{{- if or .Values.redis.url .Values.redis.clusterNodes .Values.redis.sentinels }}true{{ end }}
{{- end }}

{{- define "auth-platform.requireSharedCache" -}}
{{- $session := .Values.session }}
{{- $several := or $session.autoscaling.enabled (gt (int $session.replicaCount) 1) }}
{{- if and $several (not (include "auth-platform.redisConfigured" .)) (not .Values.secret.existingSecret) }}
{{- fail "redis.url is required when the session service runs more than one replica (session.replicaCount > 1 or session.autoscaling.enabled): without a shared cache a revoked session stays valid on the other replicas. Set redis.url (or redis.clusterNodes, or redis.sentinels), put REDIS_URL in secret.existingSecret, or run one session replica with autoscaling off." }}
{{- end }}
{{- include "auth-platform.checkRedis" . }}
{{- end }}

{{/*
Refuses Redis settings the gateway and the session service would refuse at start (runtime/redis-connection.ts),
as far as the chart can see them (not inside secret.existingSecret).
*/}}
{{- define "auth-platform.checkRedis" -}}
{{- $redis := .Values.redis }}
{{- $where := compact (list (ternary "redis.url" "" (ne $redis.url "")) (ternary "redis.clusterNodes" "" (ne $redis.clusterNodes "")) (ternary "redis.sentinels" "" (ne $redis.sentinels ""))) }}
{{- if gt (len $where) 1 }}
{{- fail (printf "%s: set one of them (a single endpoint, a cluster or Sentinel)" (join ", " $where)) }}
{{- end }}
{{- if and $redis.sentinels (not $redis.sentinelName) }}
{{- fail "redis.sentinelName is required with redis.sentinels (the name the sentinels know the primary by)" }}
{{- end }}
{{- if and $redis.tls.enabled $redis.url }}
{{- fail "redis.tls.enabled is for redis.clusterNodes or redis.sentinels: with redis.url, TLS is said by rediss://" }}
{{- end }}
{{- if and $redis.tls.caSecret $redis.url (not (hasPrefix "rediss://" $redis.url)) }}
{{- fail "redis.tls.caSecret needs a rediss:// redis.url: the CA only serves a TLS connection" }}
{{- end }}
{{- if and $redis.tls.caSecret (not $redis.url) (or $redis.clusterNodes $redis.sentinels) (not $redis.tls.enabled) }}
{{- fail "redis.tls.caSecret needs redis.tls.enabled with redis.clusterNodes or redis.sentinels: the CA only serves a TLS connection" }}
{{- end }}
{{- if not .Values.secret.existingSecret }}
{{- if and $redis.username (not $redis.password) }}
{{- fail "redis.username needs redis.password: an ACL user signs in with its password" }}
{{- end }}
{{- if and (or $redis.username $redis.password) (regexMatch "^rediss?://[^/@]*@" $redis.url) }}
{{- fail "redis.username / redis.password: redis.url already holds credentials (give them in one place)" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Whether the gateway keeps its rate-limit counters in PostgreSQL (config.rateLimit.storage database), and so
reads RATE_LIMIT_DATABASE_URL.
*/}}
{{- define "auth-platform.rateLimitInDatabase" -}}
{{- if eq .Values.config.rateLimit.storage "database" }}true{{ end }}
{{- end }}

{{/*
Refuses a rate-limit storage the gateway would refuse at start (gateway/src/config.ts), as far as the chart
can see (REDIS_URL may also come from secret.existingSecret).
*/}}
{{- define "auth-platform.checkRateLimitStorage" -}}
{{- if and (eq .Values.config.rateLimit.storage "redis") (not (include "auth-platform.redisConfigured" .)) (not .Values.secret.existingSecret) }}
{{- fail "config.rateLimit.storage redis needs redis.url (or REDIS_URL in secret.existingSecret); leave it empty to count in Redis when there is one, else in memory" }}
{{- end }}
{{- end }}

{{/*
AUTH_BASE_URL, the public URL of the API: config.baseUrl (required) followed by config.basePath.
*/}}
{{- define "auth-platform.authBaseUrl" -}}
{{- $config := .Values.config }}
{{- $base := trimSuffix "/" $config.baseUrl }}
{{- $path := trimSuffix "/" $config.basePath }}
{{- if not $base }}
{{- fail "config.baseUrl is required: the public URL of the gateway without the base path, e.g. --set config.baseUrl=https://auth.example.com. Identity builds the links in verification, password-reset and delete-account mails from it (AUTH_BASE_URL = <config.baseUrl><config.basePath>)." }}
{{- end }}
{{- if and $path (hasSuffix $path $base) }}
{{- fail (printf "config.baseUrl (%s) must not end with config.basePath (%s): the chart appends it (AUTH_BASE_URL = <config.baseUrl><config.basePath>)" $config.baseUrl $path) }}
{{- end }}
{{- printf "%s%s" $base $path }}
{{- end }}

{{/*
Name of the shared ConfigMap.
*/}}
{{- define "auth-platform.configMapName" -}}
{{- printf "%s-config" (include "auth-platform.fullname" .) }}
{{- end }}

{{/*
Name of the Secret every container reads: the existing one when given, else the chart's.
*/}}
{{- define "auth-platform.secretName" -}}
{{- if .Values.secret.existingSecret }}
{{- .Values.secret.existingSecret }}
{{- else }}
{{- printf "%s-secrets" (include "auth-platform.fullname" .) }}
{{- end }}
{{- end }}

{{/*
Image reference: repository, then @digest when given, else :tag (default appVersion).
*/}}
{{- define "auth-platform.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}
{{- end }}

{{/*
Database URL of a component: its database.url, else built from the postgresql block. User and
password are percent-encoded (urlquery writes a space as "+", which userinfo would read literally).
Takes (dict "root" $ "component" "identity").
*/}}
{{- define "auth-platform.databaseUrl" -}}
{{- $db := (index .root.Values .component).database }}
{{- if $db.url }}
{{- $db.url }}
{{- else }}
{{- $pg := .root.Values.postgresql }}
{{- $user := $pg.username | urlquery | replace "+" "%20" }}
{{- $auth := $user }}
{{- if $pg.password }}
{{- $auth = printf "%s:%s" $user ($pg.password | urlquery | replace "+" "%20") }}
{{- end }}
{{- printf "postgres://%s@%s:%d/%s" $auth $pg.host (int $pg.port) $db.name }}
{{- if $pg.params }}?{{ $pg.params }}{{ end }}
{{- end }}
{{- end }}

{{/*
AUTH_SECRET of the chart's Secret: secret.authSecret when set; else the AUTH_SECRET of the Secret already in
the cluster (`current`, the lookup result: an empty map when there is none or no cluster), so upgrades keep
it; else 64 fresh characters. randAlphaNum draws from crypto/rand: [A-Za-z0-9]^64, about 380 bits. A
generated one is drawn once per render and kept in the render's values, so the Secret, the migration
hook's Secret and the checksum annotations all see the same one.
Takes (dict "root" $ "current" <Secret or empty map>).
*/}}
{{- define "auth-platform.authSecret" -}}
{{- $current := .current | default dict }}
{{- $kept := dig "data" "AUTH_SECRET" "" $current | b64dec }}
{{- if .root.Values.secret.authSecret }}
{{- .root.Values.secret.authSecret }}
{{- else if ge (len $kept) 32 }}
{{- $kept }}
{{- else }}
{{- if not (hasKey .root.Values.secret "generatedAuthSecret") }}
{{- $_ := set .root.Values.secret "generatedAuthSecret" (randAlphaNum 64) }}
{{- end }}
{{- .root.Values.secret.generatedAuthSecret }}
{{- end }}
{{- end }}

{{/*
Name of the hook Secret the migration Jobs read on a chart-managed Secret (it exists before the release's).
*/}}
{{- define "auth-platform.migrationSecretName" -}}
{{- printf "%s-migrations" (include "auth-platform.fullname" .) }}
{{- end }}
