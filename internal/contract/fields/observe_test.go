package fields

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
)

func hookConfig(ops ...admissionregistrationv1.OperationType) admissionregistrationv1.ValidatingWebhookConfiguration {
	return admissionregistrationv1.ValidatingWebhookConfiguration{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: "c"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:           "a.example.io",
			ClientConfig:   admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://x")},
			Rules:          []admissionregistrationv1.RuleWithOperations{{Operations: ops, Rule: admissionregistrationv1.Rule{Resources: []string{"pods"}}}},
			ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}},
			SideEffects:    ptr.To(admissionregistrationv1.SideEffectClassNone),
			FailurePolicy:  nil,
		}},
	}
}

func TestValuesFollowTheInventory(t *testing.T) {
	doc, _ := json.Marshal(hookConfig("CREATE", "UPDATE"))
	got, err := Values("ValidatingWebhookConfiguration", doc)
	if err != nil {
		t.Fatal(err)
	}
	const w = "ValidatingWebhookConfiguration.webhooks[]."
	want := map[Path][]string{
		"ValidatingWebhookConfiguration.metadata": {`{"name":"c"}`},
		w + "name":                       {`"a.example.io"`},
		w + "clientConfig.url":           {`"https://x"`},
		w + "rules[].operations":         {`["CREATE","UPDATE"]`},
		w + "rules[].resources":          {`["pods"]`},
		w + "objectSelector.matchLabels": {`{"a":"b"}`},
		w + "sideEffects":                {`"None"`},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Values =\n%v\nwant\n%v", got, want)
	}
}

func TestChangedLeavesOutMetadata(t *testing.T) {
	a, _ := json.Marshal(hookConfig("CREATE"))
	bObj := hookConfig("CREATE", "DELETE")
	bObj.ResourceVersion = "7"
	b, _ := json.Marshal(bObj)
	before, _ := Values("ValidatingWebhookConfiguration", a)
	after, _ := Values("ValidatingWebhookConfiguration", b)
	got := Changed(before, after)
	if want := []Path{"ValidatingWebhookConfiguration.webhooks[].rules[].operations"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Changed = %v, want %v", got, want)
	}
}

// TestRecorderSeesCreateAndUpdate runs the transport against a server
// answering like the apiserver: a create, then an update changing the
// operations, then a write of another group's object.
func TestRecorderSeesCreateAndUpdate(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(body) // stored as sent
	}))
	defer srv.Close()
	rec := NewRecorder()
	client := &http.Client{Transport: rec.Wrap(http.DefaultTransport)}
	send := func(method, path string, obj any) {
		body, _ := json.Marshal(obj)
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(string(body)))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		back, _ := io.ReadAll(resp.Body)
		if string(back) != string(body) {
			t.Errorf("the transport changed the response body")
		}
		resp.Body.Close()
	}
	send(http.MethodPost, "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", hookConfig("CREATE"))
	send(http.MethodPut, "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/c", hookConfig("CREATE", "DELETE"))
	send(http.MethodPost, "/api/v1/namespaces/x/configmaps", map[string]any{"webhooks": []any{}})
	u := rec.Use()
	if len(u.Set) != 7 {
		t.Errorf("Set = %v, want the 7 paths of the configuration", u.Set)
	}
	if want := []Path{"ValidatingWebhookConfiguration.webhooks[].rules[].operations"}; !reflect.DeepEqual(u.Changed, want) {
		t.Errorf("Changed = %v, want %v", u.Changed, want)
	}
}

func TestResourceRootsCoverTheSixKinds(t *testing.T) {
	want := map[string]string{
		"mutatingwebhookconfigurations": "MutatingWebhookConfiguration", "validatingwebhookconfigurations": "ValidatingWebhookConfiguration",
		"validatingadmissionpolicies": "ValidatingAdmissionPolicy", "validatingadmissionpolicybindings": "ValidatingAdmissionPolicyBinding",
		"mutatingadmissionpolicies": "MutatingAdmissionPolicy", "mutatingadmissionpolicybindings": "MutatingAdmissionPolicyBinding",
	}
	if !reflect.DeepEqual(resourceRoots, want) {
		t.Errorf("resourceRoots = %v", resourceRoots)
	}
}

func TestCoverCountsInScopeFields(t *testing.T) {
	c := Cover(map[string][]Use{
		"A": {{Set: []Path{"ValidatingWebhookConfiguration.webhooks[].name", "ValidatingWebhookConfiguration.metadata"}}},
		"B": {{Changed: []Path{"ValidatingWebhookConfiguration.webhooks[].name"}}},
	})
	s := Summarize()
	if c.InScope != s.Paths-s.OutOfScope || c.Exercised != 1 || c.ChangedLive != 1 {
		t.Errorf("coverage counts %d in scope, %d exercised, %d changed live", c.InScope, c.Exercised, c.ChangedLive)
	}
	for _, f := range c.Fields {
		if f.Path == "ValidatingWebhookConfiguration.webhooks[].name" && !reflect.DeepEqual(f.Specs, []string{"A", "B"}) {
			t.Errorf("specs of webhooks[].name = %v", f.Specs)
		}
	}
	if got := len(c.Unexercised()); got != c.InScope-1 {
		t.Errorf("%d unexercised, want %d", got, c.InScope-1)
	}
}

// TestRecorderReadsProtobuf: typed clients write the built-in kinds as
// protobuf; the recorder must see them as it sees JSON.
func TestRecorderReadsProtobuf(t *testing.T) {
	obj := hookConfig("CREATE")
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	if !ok {
		t.Fatal("no protobuf serializer")
	}
	var buf bytes.Buffer
	if err := info.Serializer.Encode(&obj, &buf); err != nil {
		t.Fatal(err)
	}
	rec := NewRecorder()
	rec.observe(http.MethodPost, "ValidatingWebhookConfiguration", "", buf.Bytes(), buf.Bytes())
	if got := rec.Use().Set; len(got) != 7 {
		t.Errorf("Set from a protobuf body = %v, want the 7 paths", got)
	}
}

func TestRecorderReadsCELOfAcceptedConfigurations(t *testing.T) {
	policy := []byte(`{"metadata": {"name": "p"}, "spec": {"validations": [{"expression": "quantity(object.data.q).isLessThan(quantity('1'))",
		"messageExpression": "request.name"}], "matchConditions": [{"name": "c", "expression": "oldObject == null"}]}}`)
	rec := NewRecorder()
	rec.observe(http.MethodPost, "ValidatingAdmissionPolicy", "", policy, nil) // refused: nothing stored
	if got := rec.Use().CEL; len(got) != 0 {
		t.Errorf("a refused policy's expressions exercise nothing, got %v", got)
	}
	rec.observe(http.MethodPost, "ValidatingAdmissionPolicy", "", policy, policy)
	want := []Path{CELPath("libraries.cel.lib.std"), CELPath("libraries.kubernetes.quantity"),
		CELPath("variables.validating.object"), CELPath("variables.validating.oldObject"), CELPath("variables.validating.request")}
	if got := rec.Use().CEL; !reflect.DeepEqual(got, want) {
		t.Errorf("CEL = %v, want %v", got, want)
	}
	webhook := []byte(`{"metadata": {"name": "w"}, "webhooks": [{"name": "a", "matchConditions": [{"name": "c", "expression": "request.dryRun == true"}]}]}`)
	rec.observe(http.MethodPost, "MutatingWebhookConfiguration", "", webhook, webhook)
	if got := rec.Use().CEL; !slices.Contains(got, CELPath("variables.webhook.request")) {
		t.Errorf("a webhook's matchConditions are read in the webhook context: %v", got)
	}
}
