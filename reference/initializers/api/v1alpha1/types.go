package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// InitializerConfiguration is seed 002's InitializerConfiguration: an
// ordered list of initializers and the resources each applies to.
// Configurations are merged sorted by name; the order within one is kept.
type InitializerConfiguration struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Initializers is order-sensitive.
	Initializers []Initializer `json:"initializers,omitempty"`
}

// InitializerConfigurationList is a list of configurations.
type InitializerConfigurationList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []InitializerConfiguration `json:"items"`
}

// Initializer is one initializer: its name (the scheduling gate put on the
// pods it holds), what it applies to, and what happens when it does not
// finish in time.
type Initializer struct {
	// Name is fully qualified (domain/name), unique within a configuration.
	Name string `json:"name"`
	// Rules: the initializer applies to a creation if any rule matches.
	Rules []Rule `json:"rules,omitempty"`
	// FailurePolicy is Ignore (the default) or Fail. Configurations can
	// only be created with Ignore; an update may change it to Fail.
	FailurePolicy *FailurePolicyType `json:"failurePolicy,omitempty"`
	// TimeoutSeconds is how long the initializer may take once it is at the
	// head of a pod's list (default 5, the seed's default timeout). Not in
	// the seed's schema, which fixes the timeout at 5 s.
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty"`
}

// Rule is a tuple of API groups, versions and resources; "*" alone in a
// list means all. Subresources cannot be initialized, so resources never
// contain "/".
type Rule struct {
	APIGroups   []string `json:"apiGroups"`
	APIVersions []string `json:"apiVersions"`
	Resources   []string `json:"resources"`
}

// FailurePolicyType says what happens to an object whose initializer timed
// out.
type FailurePolicyType string

const (
	// Ignore removes the timed-out initializer; the next one gets its turn.
	Ignore FailurePolicyType = "Ignore"
	// Fail fails the pod: phase Failed, reason InitializerTimeout, the
	// Initialized condition False, remaining gates kept so it never binds.
	Fail FailurePolicyType = "Fail"
)

// DefaultTimeoutSeconds is the seed's default timeout of an initializer.
const DefaultTimeoutSeconds = 5
