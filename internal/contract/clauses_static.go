package contract

// Static (manifest-based) admission configuration: Kubernetes 1.37, KEP-5793,
// gate ManifestBasedAdmissionControlConfig (beta, on by default). Read from
// the pinned k8s.io/apiserver v0.37.2 pkg/admission/plugin/{manifest,
// webhook/manifest, policy/manifest, webhook/generic, policy/generic} and
// k8s.io/kubernetes v1.37.2 pkg/apis/admissionregistration/validation/static_suffix.go.

const (
	kep5793   = "KEP-5793 manifest-based admission control configuration"
	staticOpt = "StaticAdmissionManifests"
)

var _ = Register(
	Clause{ID: "static.reserved-suffix", Area: StaticConfig, Optional: staticOpt,
		Source:  kep5793 + "; k8s.io/kubernetes pkg/apis/admissionregistration/validation/static_suffix.go ValidateStaticSuffix",
		Promise: "A Validating/MutatingWebhookConfiguration, Validating/MutatingAdmissionPolicy or binding whose name ends in .static.k8s.io is refused over the API (422 naming metadata.name), while the same object under another name is accepted.",
		Specs:   []string{"StaticNameReserved", "StaticNameReservedMutatingPolicy"}},
	Clause{ID: "static.enforced-at-start", Area: StaticConfig, Optional: staticOpt,
		Source:  kep5793 + "; webhook/manifest/source LoadInitial, policy/manifest/source LoadInitial",
		Promise: "Static webhooks and policies present when an apiserver starts are loaded before it serves: its first requests after becoming ready are already subject to them.",
		Specs:   []string{"StaticEnforcedAtStart"}},
	Clause{ID: "static.called-for-configurations", Area: StaticConfig, Optional: staticOpt,
		Source:  kep5793 + "; webhook/generic Webhook.Dispatch, policy/generic Plugin.Dispatch (isExcludedFromAPIHooks)",
		Promise: "Static webhooks and policies are called for admission configuration objects (webhook configurations, policies, bindings), for which API-registered hooks are never called.",
		Specs:   []string{"StaticHooksForConfigurations"}},
	Clause{ID: "static.not-listed", Area: StaticConfig, Optional: staticOpt,
		Source:  kep5793,
		Promise: "Static configurations are never stored: LIST of webhook configurations, policies and bindings returns none of them and GET by name is 404.",
		Specs:   []string{"StaticHooksForConfigurations"}},
	Clause{ID: "static.mutating-first", Area: StaticConfig, Optional: staticOpt,
		Source:  kep5793 + "; webhook/generic compositeWebhookSource (static webhooks come first)",
		Promise: "A static mutating webhook is called before every API-registered mutating webhook, whatever the configurations' names.",
		Specs:   []string{"StaticMutatingWebhookFirst"}},
	Clause{ID: "static.validating-policies-first", Area: StaticConfig, Optional: staticOpt,
		Source:  kep5793 + "; policy/generic compositePolicySource.Hooks (static policies come first), policy/validating dispatcher (the first denial is returned)",
		Promise: "Static ValidatingAdmissionPolicies are evaluated before API-registered ones: when both deny a request, the response names the static policy, whatever the policies' names.",
		Specs:   []string{"StaticValidatingPolicyFirst"}},
	Clause{ID: "static.mutating-policies-first", Area: StaticConfig, Optional: staticOpt,
		Source:  kep5793 + "; policy/generic compositePolicySource.Hooks (static policies come first), policy/mutating dispatcher",
		Promise: "Static MutatingAdmissionPolicies are applied before API-registered ones, and the API policies see the static policies' mutations.",
		Specs:   []string{"StaticMutatingPolicyFirst"}},
	Clause{ID: "static.file-forms", Area: StaticConfig, Optional: staticOpt,
		Source:  kep5793 + "; manifest.LoadFiles (.yaml, .yml, .json; empty files and subdirectories skipped; multi-document YAML), webhook/manifest/loader and policy/manifest/loader acceptFileObject (v1 List items)",
		Promise: "A staticManifestsDir file may hold several YAML documents (documents holding only whitespace are skipped), a v1 List of policies or of webhook configurations, or JSON, with the extension .yaml, .yml or .json; subdirectories, files of other extensions and empty files are skipped without failing the rest of the directory.",
		Specs:   []string{"StaticManifestFileForms"}},
	Clause{ID: "static.reload-propagation", Area: StaticConfig, Optional: staticOpt,
		Source:  kep5793 + "; util/filesystem.WatchUntil (fsnotify, 60 s poll fallback)",
		Promise: "Adding, changing and removing a file in a staticManifestsDir is enforced on every apiserver within the staticManifestReload bound.",
		Specs:   []string{"StaticManifestReload"}},
	Clause{ID: "static.invalid-reload-keeps-previous", Area: StaticConfig, Optional: staticOpt,
		Source:  kep5793 + "; manifest source checkAndReload, manifest/metrics (automatic_reloads_total, automatic_reload_last_timestamp_seconds, last_config_info)",
		Promise: "A directory that fails validation on reload (a service clientConfig in a validating or mutating webhook, a paramKind, a name without .static.k8s.io, a binding to a missing policy) or the loader's file checks (a document separator followed by text, a document that does not decode, an object of another kind than the directory's, a name already loaded from the directory, a v1 List with an item that does not decode or fails validation, a file that cannot be read; in a policy directory also a policy or binding API validation refuses, a binding whose name or policyName lacks .static.k8s.io or that has a paramRef, a MutatingAdmissionPolicy with a paramKind) leaves the previous set enforced, counts a failure in apiserver_manifest_admission_config_controller_automatic_reloads_total and sets automatic_reload_last_timestamp_seconds{status=failure} to the time it failed while {status=success} keeps the time the good files loaded, and last_config_info keeps the hash of the last good files (sha256 of each file followed by a zero byte).",
		Specs:   []string{"StaticInvalidReloadKeepsPrevious"}},
	Clause{ID: "static.invalid-dir-refuses-start", Area: StaticConfig, Optional: staticOpt,
		Source:  kep5793 + "; webhook/generic Webhook.ValidateInitialization, policy/generic Plugin.ValidateInitialization",
		Promise: "An apiserver whose staticManifestsDir fails to load at start does not start, and says which directory. Checked by the embedded provider's unit test TestStaticInvalidDirRefusesStart (a spec cannot restart the run's apiservers); the spec listed shows the directories that did load.",
		Specs:   []string{"StaticEnforcedAtStart"}},
)
