package fields

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/admission-conformance/admission-conformance/framework/results"
	"github.com/admission-conformance/admission-conformance/internal/contract/celenv"
)

// Use is what one spec case did with the admission API's fields: the
// public results.FieldUse, which results.json carries for each case.
type Use = results.FieldUse

// Recorder collects one case's Use. It is safe for concurrent use.
type Recorder struct {
	mu                                    sync.Mutex
	set, changed, received, answered, cel map[Path]bool
	// last is the latest stored form of each object the case read or
	// wrote, by resource and name: the baseline a later update is diffed
	// against.
	last map[string]map[Path][]string
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder {
	return &Recorder{set: map[Path]bool{}, changed: map[Path]bool{}, received: map[Path]bool{}, answered: map[Path]bool{},
		cel: map[Path]bool{}, last: map[string]map[Path][]string{}}
}

// Use returns what was recorded so far.
func (r *Recorder) Use() Use {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Use{Set: sortedKeys(r.set), Changed: sortedKeys(r.changed), Received: sortedKeys(r.received), Answered: sortedKeys(r.answered),
		CEL: sortedKeys(r.cel)}
}

// Received records the paths of an AdmissionRequest a webhook received.
func (r *Recorder) Received(paths []Path) { r.add(r.received, paths) }

// Answered records the paths of an AdmissionResponse a webhook answered.
func (r *Recorder) Answered(paths []Path) { r.add(r.answered, paths) }

func (r *Recorder) add(into map[Path]bool, paths []Path) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range paths {
		into[p] = true
	}
}

var reviewPkg = reflect.TypeOf(admissionv1.AdmissionRequest{}).PkgPath()

// resourceRoots maps an admissionregistration.k8s.io resource to the root
// type its objects are.
var resourceRoots = func() map[string]string {
	out := map[string]string{}
	for _, r := range Roots {
		if r.Type.PkgPath() != reviewPkg { // a configuration kind, not a review
			plural, _ := meta.UnsafeGuessKindToResource(configGroupVersion.WithKind(r.Name))
			out[plural.Resource] = r.Name
		}
	}
	return out
}()

var configGroupVersion = schema.GroupVersion{Group: "admissionregistration.k8s.io", Version: "v1"}

var configPrefix = "/apis/" + configGroupVersion.String() + "/"

// Wrap returns a RoundTripper recording the configuration writes (and the
// single-object reads, the baselines of later updates) it carries; give it
// to rest.Config.Wrap.
func (r *Recorder) Wrap(rt http.RoundTripper) http.RoundTripper {
	return recordingTransport{next: rt, rec: r}
}

type recordingTransport struct {
	next http.RoundTripper
	rec  *Recorder
}

func (t recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	root, name, ok := configTarget(req)
	if !ok {
		return t.next.RoundTrip(req)
	}
	var body []byte
	if req.Body != nil && req.Method != http.MethodGet {
		var err error
		if body, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		_ = req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	var stored []byte
	if resp.StatusCode/100 == 2 && resp.Body != nil {
		if stored, err = io.ReadAll(resp.Body); err != nil {
			return nil, err
		}
		_ = resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(stored))
	}
	t.rec.observe(req.Method, root, name, body, stored)
	return resp, nil
}

// configTarget says whether req writes or reads one object of an admission
// configuration kind, and which.
func configTarget(req *http.Request) (root, name string, ok bool) {
	switch req.Method {
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch:
	default:
		return "", "", false
	}
	rest, found := strings.CutPrefix(req.URL.Path, configPrefix)
	if !found {
		return "", "", false
	}
	parts := strings.Split(rest, "/")
	root, known := resourceRoots[parts[0]]
	switch {
	case !known || len(parts) > 2:
		return "", "", false // another group's object, a subresource
	case len(parts) == 1 && req.Method != http.MethodPost:
		return "", "", false // a list or a collection
	case len(parts) == 2:
		name = parts[1]
	}
	return root, name, true
}

// observe records one round trip: the request's object as set, the
// response as the object's new baseline, and on an update or patch what
// changed against the previous baseline.
func (r *Recorder) observe(method, root, name string, body, stored []byte) {
	var setPaths []Path
	if method != http.MethodGet {
		setPaths, _ = Paths(root, asJSON(body)) // an unreadable body records nothing
	}
	stored = asJSON(stored)
	after, err := Values(root, stored)
	if err != nil {
		after = nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range setPaths {
		r.set[p] = true
	}
	if after == nil {
		return
	}
	if method != http.MethodGet {
		for _, p := range celUsed(root, after) {
			r.cel[p] = true
		}
	}
	if name == "" { // a create: the name is in the object
		name = objectName(stored)
	}
	key := root + "/" + name
	if before, seen := r.last[key]; seen && (method == http.MethodPut || method == http.MethodPatch) {
		for _, p := range Changed(before, after) {
			r.changed[p] = true
		}
	}
	r.last[key] = after
}

// expressionFields are the last path segments that hold CEL.
var expressionFields = []string{".expression", ".messageExpression", ".valueExpression"}

// celContexts says where a root's expressions are compiled.
var celContexts = map[string]celenv.Context{
	"MutatingWebhookConfiguration":   celenv.Webhook,
	"ValidatingWebhookConfiguration": celenv.Webhook,
	"ValidatingAdmissionPolicy":      celenv.Validating,
	"MutatingAdmissionPolicy":        celenv.Mutating,
}

// celUsed returns the CEL entries the expressions of a stored object use:
// only what the apiserver accepted counts, so a policy refused for an
// expression that does not compile exercises nothing.
func celUsed(root string, values map[Path][]string) []Path {
	ctx, ok := celContexts[root]
	if !ok {
		return nil
	}
	var out []Path
	for p, vals := range values {
		if !slices.ContainsFunc(expressionFields, func(s string) bool { return strings.HasSuffix(string(p), s) }) {
			continue
		}
		for _, v := range vals {
			var expression string
			if json.Unmarshal([]byte(v), &expression) != nil {
				continue
			}
			for _, e := range celenv.Used(ctx, expression) {
				out = append(out, CELPath(e))
			}
		}
	}
	return out
}

// asJSON returns a body as JSON: typed clients send and receive the
// built-in kinds as protobuf, which the client's own scheme decodes.
func asJSON(body []byte) []byte {
	if len(body) == 0 || body[0] == '{' {
		return body
	}
	obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(body, nil, nil)
	if err != nil {
		return nil
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return nil
	}
	return out
}

func objectName(doc []byte) string {
	var o struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(doc, &o)
	return o.Metadata.Name
}
