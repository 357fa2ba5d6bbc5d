package audit

// Policy logs every request at Metadata level, which carries the admission
// annotations specs read (for example failed-open.*), except the chatter of
// leases and events, and those naming RequestLevelName at Request level.
// Every provider that writes audit logs uses it.
const Policy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: None
  resources:
  - group: coordination.k8s.io
    resources: ["leases"]
  - group: ""
    resources: ["events"]
- level: Request
  resources:
  - group: ""
    resources: ["configmaps"]
    resourceNames: ["` + RequestLevelName + `"]
- level: Metadata
`

// RequestLevelName is the one ConfigMap name the policy logs at Request
// level, for requests naming it (update, patch, delete: a create names no
// object), so specs can read the Request-level admission annotations
// (patch.webhook.admission.k8s.io/...) without every request body logged.
const RequestLevelName = "audit-at-request-level"
