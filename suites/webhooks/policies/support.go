package policies

import (
	"context"
	"encoding/json"
	"time"

	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/framework/enforce"
	"github.com/admission-conformance/admission-conformance/framework/harness"
	"github.com/admission-conformance/admission-conformance/suites/internal/speckit"
)

const validationFailureKey = "validation.policy.admission.k8s.io/validation_failure"

// validationFailure is one entry of the validation_failure annotation.
type validationFailure struct {
	Message           string   `json:"message"`
	Policy            string   `json:"policy"`
	Binding           string   `json:"binding"`
	ExpressionIndex   int      `json:"expressionIndex"`
	ValidationActions []string `json:"validationActions"`
}

// failures decodes the validation_failure annotation, which must be there.
func failures(ann map[string]string) []validationFailure {
	gomega.ExpectWithOffset(1, ann).To(gomega.HaveKey(validationFailureKey), "validationActions Audit must annotate the audit event")
	var out []validationFailure
	gomega.ExpectWithOffset(1, json.Unmarshal([]byte(ann[validationFailureKey]), &out)).To(gomega.Succeed(),
		"%s must be a JSON list, got %s", validationFailureKey, ann[validationFailureKey])
	return out
}

func configMapCreates() *admissionregistrationv1.MatchResources {
	return &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
		RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
		},
	}}}
}

// policyProbe is a dry-run probe that tolerates only admission answers.
func policyProbe(f *harness.Framework, label string, enforced func(error) bool) enforce.Probe {
	return func(ctx context.Context, rc *rest.Config) (bool, error) {
		_, err := speckit.DryRunCreate(ctx, rc, f.Namespace, label)
		if err != nil && !apierrors.IsInvalid(err) && !apierrors.IsForbidden(err) {
			return false, err
		}
		return enforced(err), nil
	}
}

// policyRefreshPeriod is how often an apiserver's policy source recompiles
// the policies a notification marked dirty (k8s.io/apiserver v0.37.2
// pkg/admission/plugin/policy/generic/policy_source.go,
// policyRefreshIntervalDefault).
const policyRefreshPeriod = time.Second
