// Package exemption keeps update mutators away from pods being initialized
// (seed 000: "The update admission mutators shouldn't run" during
// initialization). Upstream calls every matching mutating webhook for every
// pod update, gate removals included, and has no hook to skip them; so this
// controller adds a matchCondition to each mutating webhook (of the selected
// configurations) whose rules match pod updates: the condition is false for
// an update of a pod that carries the initializing label, so the apiserver
// does not call the webhook for it. Remove takes the conditions away again.
//
// Validating webhooks are left alone: the seed keeps validation during
// initialization.
package exemption

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"

	"github.com/admission-conformance/admission-conformance/reference/initializers/api/v1alpha1"
	"github.com/admission-conformance/admission-conformance/reference/initializers/internal/keyloop"
)

// Expression is the exemption's CEL matchCondition: true (call the webhook)
// unless the request updates a pod that is being initialized.
const Expression = "request.resource.group != '' || request.resource.resource != 'pods' || request.operation != 'UPDATE' || " +
	"oldObject == null || !has(oldObject.metadata.labels) || !('" + v1alpha1.InitializingLabel + "' in oldObject.metadata.labels)"

// maxMatchConditions is the apiserver's limit per webhook.
const maxMatchConditions = 64

// Controller stamps the exemption on mutating webhook configurations.
type Controller struct {
	client kubernetes.Interface
	loop   *keyloop.Loop
}

// New returns a controller for the configurations selector (a label
// selector; "" is all) selects.
func New(client kubernetes.Interface, selector string, log logr.Logger) *Controller {
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = selector }))
	c := &Controller{client: client}
	c.loop = keyloop.New("exemption controller", factory, factory.Admissionregistration().V1().MutatingWebhookConfigurations().Informer(),
		10*time.Millisecond, time.Second, c.sync, func(key string, err error) {
			log.V(1).Info("exemption not stamped yet", "configuration", key, "error", err.Error())
		})
	return c
}

// Start runs the controller until ctx ends.
func (c *Controller) Start(ctx context.Context) { c.loop.Start(ctx) }

// WaitForSync returns once the informer has synced, or an error when ctx
// ends first.
func (c *Controller) WaitForSync(ctx context.Context) error { return c.loop.WaitForSync(ctx) }

// Wait waits for the controller's goroutines after ctx ended.
func (c *Controller) Wait() { c.loop.Wait() }

func (c *Controller) sync(ctx context.Context, name string) error {
	obj, err := c.loop.Get(name)
	if obj == nil {
		return err
	}
	cfg := obj.(*admissionregistrationv1.MutatingWebhookConfiguration).DeepCopy()
	if !Stamp(cfg) {
		return nil
	}
	_, err = c.client.AdmissionregistrationV1().MutatingWebhookConfigurations().Update(ctx, cfg, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// Stamp adds the exemption to every webhook of cfg that matches pod updates
// and lacks it, and reports whether it changed anything.
func Stamp(cfg *admissionregistrationv1.MutatingWebhookConfiguration) bool {
	changed := false
	for i := range cfg.Webhooks {
		w := &cfg.Webhooks[i]
		if !matchesPodUpdates(w.Rules) || hasExemption(w.MatchConditions) || len(w.MatchConditions) >= maxMatchConditions {
			continue
		}
		w.MatchConditions = append(w.MatchConditions, admissionregistrationv1.MatchCondition{Name: v1alpha1.ExemptionCondition, Expression: Expression})
		changed = true
	}
	return changed
}

// Unstamp removes the exemption from every webhook of cfg and reports
// whether it changed anything.
func Unstamp(cfg *admissionregistrationv1.MutatingWebhookConfiguration) bool {
	changed := false
	for i := range cfg.Webhooks {
		w := &cfg.Webhooks[i]
		kept := slices.DeleteFunc(slices.Clone(w.MatchConditions), func(m admissionregistrationv1.MatchCondition) bool {
			return m.Name == v1alpha1.ExemptionCondition
		})
		if len(kept) != len(w.MatchConditions) {
			w.MatchConditions, changed = kept, true
		}
	}
	return changed
}

// Remove takes the exemption off every selected configuration.
func Remove(ctx context.Context, client kubernetes.Interface, selector string) error {
	api := client.AdmissionregistrationV1().MutatingWebhookConfigurations()
	list, err := api.List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return err
	}
	for i := range list.Items {
		cfg := &list.Items[i]
		if !Unstamp(cfg) {
			continue
		}
		if _, err := api.Update(ctx, cfg, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("remove the exemption from %s: %w", cfg.Name, err)
		}
	}
	return nil
}

func hasExemption(conditions []admissionregistrationv1.MatchCondition) bool {
	return slices.ContainsFunc(conditions, func(m admissionregistrationv1.MatchCondition) bool { return m.Name == v1alpha1.ExemptionCondition })
}

// matchesPodUpdates reports whether a rule matches UPDATE of pods or of
// their subresources in the core group.
func matchesPodUpdates(rules []admissionregistrationv1.RuleWithOperations) bool {
	for _, r := range rules {
		update := slices.Contains(r.Operations, admissionregistrationv1.Update) || slices.Contains(r.Operations, admissionregistrationv1.OperationAll)
		core := slices.Contains(r.APIGroups, "") || slices.Contains(r.APIGroups, "*")
		pods := slices.ContainsFunc(r.Resources, func(res string) bool {
			return res == "pods" || res == "*" || strings.HasPrefix(res, "pods/") || strings.HasPrefix(res, "*/")
		})
		if update && core && pods {
			return true
		}
	}
	return false
}
