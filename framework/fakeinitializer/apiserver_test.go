package fakeinitializer_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
)

// apiserver is an in-process stand-in for the pods API of one namespace,
// as much of it as a fake initializer uses: list, watch (with or without
// the initial events of a watch-list), get, and JSON patch. It is the
// client's transport, so nothing listens on a socket.
type apiserver struct {
	namespace string

	mu       sync.Mutex
	rv       int
	pods     map[string]*corev1.Pod
	watchers []chan []byte
	patches  []string
}

func newAPIServer(namespace string, pods ...*corev1.Pod) *apiserver {
	s := &apiserver{namespace: namespace, rv: 1, pods: map[string]*corev1.Pod{}}
	for _, p := range pods {
		p = p.DeepCopy()
		p.Namespace, p.ResourceVersion = namespace, "1"
		s.pods[p.Name] = p
	}
	return s
}

// Config is the rest.Config a fake initializer is started with.
func (s *apiserver) Config() *rest.Config {
	return &rest.Config{Host: "http://apiserver.invalid", Transport: s}
}

// Patches are the JSON patches the apiserver applied, in order.
func (s *apiserver) Patches() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.patches...)
}

// RoundTrip serves one request.
func (s *apiserver) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := s.serve(req)
	if resp != nil {
		resp.Request = req
	}
	return resp, err
}

func (s *apiserver) serve(req *http.Request) (*http.Response, error) {
	collection := "/api/v1/namespaces/" + s.namespace + "/pods"
	q := req.URL.Query()
	switch name, one := strings.CutPrefix(req.URL.Path, collection+"/"); {
	case req.Method == http.MethodGet && req.URL.Path == collection && q.Get("watch") == "true":
		return s.watch(req, q.Get("sendInitialEvents") == "true"), nil
	case req.Method == http.MethodGet && req.URL.Path == collection:
		s.mu.Lock()
		defer s.mu.Unlock()
		list := corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"},
			ListMeta: metav1.ListMeta{ResourceVersion: strconv.Itoa(s.rv)}}
		for _, p := range s.pods {
			list.Items = append(list.Items, *p)
		}
		return respond(http.StatusOK, list), nil
	case req.Method == http.MethodGet && one:
		s.mu.Lock()
		defer s.mu.Unlock()
		if p, ok := s.pods[name]; ok {
			return respond(http.StatusOK, p), nil
		}
		return respond(http.StatusNotFound, status(http.StatusNotFound, metav1.StatusReasonNotFound, "pod "+name+" not found")), nil
	case req.Method == http.MethodPatch && one:
		patch, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		return s.patch(name, patch), nil
	}
	return respond(http.StatusNotFound, status(http.StatusNotFound, metav1.StatusReasonNotFound, req.Method+" "+req.URL.Path)), nil
}

// patch applies a JSON patch to pod name, refusing it (422) when one of its
// tests fails, and sends the change to the watchers.
func (s *apiserver) patch(name string, patch []byte) *http.Response {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.pods[name]
	if !ok {
		return respond(http.StatusNotFound, status(http.StatusNotFound, metav1.StatusReasonNotFound, "pod "+name+" not found"))
	}
	decoded, err := jsonpatch.DecodePatch(patch)
	if err != nil {
		return respond(http.StatusBadRequest, status(http.StatusBadRequest, metav1.StatusReasonBadRequest, err.Error()))
	}
	doc, _ := json.Marshal(p)
	if doc, err = decoded.Apply(doc); err != nil {
		return respond(http.StatusUnprocessableEntity, status(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, err.Error()))
	}
	next := &corev1.Pod{}
	if err := json.Unmarshal(doc, next); err != nil {
		return respond(http.StatusUnprocessableEntity, status(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, err.Error()))
	}
	s.rv++
	next.ResourceVersion = strconv.Itoa(s.rv)
	s.pods[name] = next
	s.patches = append(s.patches, string(patch))
	s.broadcastLocked(event("MODIFIED", next))
	return respond(http.StatusOK, next)
}

// watch streams the pods' changes until the client goes away; a watch-list
// gets every pod first, then the bookmark that ends the initial events.
func (s *apiserver) watch(req *http.Request, initial bool) *http.Response {
	events := make(chan []byte, 64)
	s.mu.Lock()
	if initial {
		for _, p := range s.pods {
			events <- event("ADDED", p)
		}
		events <- event("BOOKMARK", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: strconv.Itoa(s.rv),
			Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"}}})
	}
	s.watchers = append(s.watchers, events)
	s.mu.Unlock()
	r, w := io.Pipe()
	go func() {
		defer w.Close()
		for {
			select {
			case e := <-events:
				if _, err := w.Write(e); err != nil {
					return
				}
			case <-req.Context().Done():
				return
			}
		}
	}()
	resp := respond(http.StatusOK, nil)
	resp.Body = r
	return resp
}

func (s *apiserver) broadcastLocked(e []byte) {
	for _, w := range s.watchers {
		select {
		case w <- e:
		default: // a watcher that stopped reading
		}
	}
}

func event(kind string, p *corev1.Pod) []byte {
	p = p.DeepCopy()
	p.APIVersion, p.Kind = "v1", "Pod"
	object, _ := json.Marshal(p)
	b, _ := json.Marshal(metav1.WatchEvent{Type: kind, Object: runtime.RawExtension{Raw: object}})
	return append(b, '\n')
}

func status(code int32, reason metav1.StatusReason, message string) *metav1.Status {
	return &metav1.Status{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}, Status: metav1.StatusFailure,
		Code: code, Reason: reason, Message: message}
}

func respond(code int, body any) *http.Response {
	var b []byte
	if body != nil {
		b, _ = json.Marshal(body)
	}
	return &http.Response{StatusCode: code, Status: fmt.Sprintf("%d %s", code, http.StatusText(code)),
		Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(bytes.NewReader(b))}
}
