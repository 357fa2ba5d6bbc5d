package cluster

// StaticPlugin names an admission plugin that reads static (manifest-based)
// configurations from its staticManifestsDir (Kubernetes 1.37, KEP-5793).
// The values are the plugins' names in an AdmissionConfiguration, which are
// also the plugin label of the apiserver's reload metrics.
type StaticPlugin string

// The four plugins with a staticManifestsDir.
const (
	StaticValidatingWebhook StaticPlugin = "ValidatingAdmissionWebhook"
	StaticMutatingWebhook   StaticPlugin = "MutatingAdmissionWebhook"
	StaticValidatingPolicy  StaticPlugin = "ValidatingAdmissionPolicy"
	StaticMutatingPolicy    StaticPlugin = "MutatingAdmissionPolicy"
)

// StaticPlugins lists the four in a fixed order.
var StaticPlugins = []StaticPlugin{StaticValidatingWebhook, StaticMutatingWebhook, StaticValidatingPolicy, StaticMutatingPolicy}

// StaticManifests is implemented by clusters whose apiservers were started
// with a staticManifestsDir for each of the four plugins, in directories the
// harness can write (features.StaticAdmissionManifests).
type StaticManifests interface {
	// StaticManifestDirs returns, for each apiserver replica in the order of
	// ReplicaConfigs, the directory of each plugin. Every replica has its
	// own directories, as every control-plane node of a real cluster has its
	// own disk: a change is made on each, and each replica's watcher is
	// measured on its own.
	StaticManifestDirs() []map[StaticPlugin]string
	// StaticBootProbes are the outcomes of the requests the provider made
	// to each replica right after it became ready, against the static hooks
	// it wrote before starting it (one per replica, ReplicaConfigs order).
	StaticBootProbes() []StaticBootProbe
}

// StaticBootProbe is what the first requests to one replica met. Each field
// is the error text of a dry-run create the static hook must refuse, or
// empty if the create was allowed.
type StaticBootProbe struct {
	// Policy is the create of a namespace carrying BootPolicyLabel, which
	// the static ValidatingAdmissionPolicy BootPolicyName denies.
	Policy string `json:"policy"`
	// PolicyCode is the HTTP status of that refusal (422 expected).
	PolicyCode int32 `json:"policyCode"`
	// Webhook is the create of a namespace carrying BootWebhookLabel, which
	// the static validating webhook BootWebhookName (failurePolicy Fail,
	// an address nothing listens on) must refuse.
	Webhook     string `json:"webhook"`
	WebhookCode int32  `json:"webhookCode"`
}

// The static hooks the provider writes before the apiservers start. They
// match only namespaces carrying their label, which nothing but the boot
// probe sets.
const (
	BootPolicyName   = "boot-policy.admission-conformance.static.k8s.io"
	BootPolicyLabel  = "admission-conformance.io/static-boot-policy"
	BootWebhookName  = "boot-webhook.admission-conformance.static.k8s.io"
	BootWebhookLabel = "admission-conformance.io/static-boot-webhook"
	// BootPolicyMessage is the denial message of the boot policy.
	BootPolicyMessage = "denied by the static boot policy of admission-conformance"
)
