package harness

import (
	"context"
	"slices"
	"testing"

	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

func TestReleaseNamespaceDeletesPodsAndTheirMakersButNotTheNamespace(t *testing.T) {
	client := fake.NewClientset()
	if err := releaseNamespace(context.Background(), client, "ns-a"); err != nil {
		t.Fatal(err)
	}
	var deleted []string
	for _, a := range client.Actions() {
		if a.GetNamespace() != "ns-a" {
			t.Errorf("%s %s outside the case's namespace (%q)", a.GetVerb(), a.GetResource().Resource, a.GetNamespace())
		}
		if _, ok := a.(k8stesting.DeleteCollectionAction); !ok {
			t.Errorf("%s %s: want only deletecollection", a.GetVerb(), a.GetResource().Resource)
			continue
		}
		deleted = append(deleted, a.GetResource().Resource)
	}
	want := []string{"deployments", "statefulsets", "daemonsets", "cronjobs", "jobs", "replicasets", "replicationcontrollers", "pods"}
	if !slices.Equal(deleted, want) {
		t.Errorf("deleted %v, want %v (pods last, after what makes them)", deleted, want)
	}
}

func TestDeleteNamespaceDeletesIt(t *testing.T) {
	client := fake.NewClientset()
	if err := deleteNamespace(context.Background(), client, "gone-already"); err != nil {
		t.Fatalf("a namespace already gone: %v", err)
	}
	actions := client.Actions()
	if len(actions) != 1 || actions[0].GetVerb() != "delete" || actions[0].GetResource().Resource != "namespaces" {
		t.Errorf("actions %v, want one delete of the namespace", actions)
	}
}
