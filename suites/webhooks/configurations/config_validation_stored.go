package configurations

import (
	"context"
	"fmt"

	"github.com/onsi/ginkgo/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
)

// policyStore is what the validation cases need of a policy client: the
// typed ValidatingAdmissionPolicy client and mutatingpolicy.Client both fit.
type policyStore[T any] interface {
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// storeThenDryRun creates obj named name, deletes it after the case, and
// sends write (a dry-run update of the spec or the status) of the latest
// stored version: the type-checking controller writes the policy's status
// meanwhile, so a conflict is retried on the version it left.
func storeThenDryRun[T any](ctx context.Context, store policyStore[T], name string, obj T, write func(context.Context, T) error) error {
	if _, err := store.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create the policy %s: %w", name, err)
	}
	ginkgo.DeferCleanup(func(ctx context.Context) error {
		return store.Delete(ctx, name, metav1.DeleteOptions{})
	})
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		current, err := store.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		return write(ctx, current)
	})
}
