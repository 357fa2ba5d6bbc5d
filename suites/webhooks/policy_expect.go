package webhooks

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/admission-conformance/admission-conformance/framework/harness"
)

// warnings collects the warning headers of the requests of one client.
type warnings struct {
	sync.Mutex
	texts []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.Lock()
	defer w.Unlock()
	w.texts = append(w.texts, text)
}

// take returns the warnings collected so far and forgets them.
func (w *warnings) take() []string {
	w.Lock()
	defer w.Unlock()
	out := w.texts
	w.texts = nil
	return out
}

// takeMentioning reports whether a warning collected since the last take
// contains text, and forgets them all.
func (w *warnings) takeMentioning(text string) bool {
	return slices.ContainsFunc(w.take(), func(warning string) bool { return strings.Contains(warning, text) })
}

// warningClient is a client whose warnings are collected, not logged.
func warningClient(f *harness.Framework) (kubernetes.Interface, *warnings) {
	w := &warnings{}
	rc := rest.CopyConfig(f.Config)
	rc.WarningHandler = w
	client, err := kubernetes.NewForConfig(rc)
	gomega.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
	return client, w
}

// configMap is an object in the spec's namespace with the given data.
func configMap(f *harness.Framework, name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.Namespace}, Data: data}
}

// expectPolicyDenial asserts err is the denial of a policy: its HTTP code,
// reason and exact message.
func expectPolicyDenial(err error, code int32, reason metav1.StatusReason, message string) {
	s := expectDenialStatus(err, code, reason, message)
	gomega.ExpectWithOffset(1, strings.HasSuffix(s.Message, message)).To(gomega.BeTrue(),
		"the denial's message must end with %q, got %q", message, s.Message)
}

// expectDenialStatus asserts err is a Status with code and reason (offset
// 2: its callers' callers are the specs) and returns it; what names the
// denial is for its caller to check.
func expectDenialStatus(err error, code int32, reason metav1.StatusReason, what string) metav1.Status {
	gomega.ExpectWithOffset(2, err).To(gomega.HaveOccurred(), "the policy must deny the request (%s)", what)
	var status apierrors.APIStatus
	gomega.ExpectWithOffset(2, errors.As(err, &status)).To(gomega.BeTrue(), "a denial must be a Status, got %T: %v", err, err)
	s := status.Status()
	gomega.ExpectWithOffset(2, s.Code).To(gomega.Equal(code), "the denial's HTTP code (reason %s, message %q)", s.Reason, s.Message)
	gomega.ExpectWithOffset(2, s.Reason).To(gomega.Equal(reason), "the denial's reason (message %q)", s.Message)
	return s
}

// vapDenied is the message of a ValidatingAdmissionPolicy denial.
func vapDenied(f *harness.Framework, suffix, message string) string {
	return fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s", policyName(f, suffix), policyName(f, suffix), message)
}

func denyAction() []admissionregistrationv1.ValidationAction {
	return []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}
}

// expectFieldInvalid asserts err is a 422 Invalid naming field with detail.
func expectFieldInvalid(err error, field, detail string) {
	gomega.ExpectWithOffset(1, err).To(gomega.HaveOccurred(), "the apiserver must refuse the object (%s: %s)", field, detail)
	gomega.ExpectWithOffset(1, apierrors.IsInvalid(err)).To(gomega.BeTrue(), "refusal must be 422 Invalid, got %v", err)
	var causes []string
	var status apierrors.APIStatus
	if errors.As(err, &status) && status.Status().Details != nil {
		for _, c := range status.Status().Details.Causes {
			causes = append(causes, c.Field+": "+c.Message)
		}
	}
	gomega.ExpectWithOffset(1, causes).To(gomega.ContainElement(gomega.And(gomega.HavePrefix(field+": "), gomega.ContainSubstring(detail))),
		"the refusal must name field %s (%s)", field, detail)
}

// expectPolicyDenialContaining is expectPolicyDenial for a message that
// ends with text the pinned release does not fix (a library's wording):
// the message must contain prefix.
func expectPolicyDenialContaining(err error, code int32, reason metav1.StatusReason, prefix string) {
	s := expectDenialStatus(err, code, reason, prefix)
	gomega.ExpectWithOffset(1, s.Message).To(gomega.ContainSubstring(prefix), "the denial's message")
}
