package harness

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ensureDefaultServiceAccount creates the case namespace's default
// ServiceAccount unless it exists, on a cluster without a controller manager
// to make it.
func (f *Framework) ensureDefaultServiceAccount(ctx context.Context) error {
	_, err := f.Client.CoreV1().ServiceAccounts(f.Namespace).Create(ctx, &corev1.ServiceAccount{
		ObjectMeta: metav1.ObjectMeta{Name: "default"},
	}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create the default service account: %w", err)
	}
	return nil
}
