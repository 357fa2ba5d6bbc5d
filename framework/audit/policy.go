package audit

// Policy logs every request at Metadata level, which carries the admission
// annotations specs read (for example failed-open.*), except the chatter of
// leases and events. Every provider that writes audit logs uses it.
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
- level: Metadata
`
