package main

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"sync"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
)

// The libraries log through klog (a duplicate validation error, for one); the engine's answers say everything, and
// its host's standard error is crdgate's.
func init() {
	klog.SetLogger(logr.Discard())
}

// The engine answers four questions, each a JSON document in and a JSON document out (see exports.go for how the
// bytes travel):
//
//	load:     a CustomResourceDefinition (apiextensions.k8s.io/v1) → loadAnswer
//	judge:    a judgeRequest about an object of a loaded CRD → judgeAnswer
//	evaluate: an evaluateRequest, one CEL expression in a CRD rule's environment → evaluateAnswer (evaluate.go)
//	match:    a matchRequest, a webhook's matchConditions against one request → matchAnswer (match.go)
//
// Nothing here panics its way out: a panic becomes an answer with "error" set.

type loadAnswer struct {
	Handle   int32    `json:"handle,omitempty"`
	Group    string   `json:"group,omitempty"`
	Kind     string   `json:"kind,omitempty"`
	Versions []string `json:"versions,omitempty"`
	// What kube-apiserver says when it refuses to create this CRD; empty when it would accept it.
	Refusal []fieldProblem `json:"refusal"`
	// Set when the CRD cannot be served at all (its schema cannot be compiled), with or without a refusal.
	Error string `json:"error,omitempty"`
}

type judgeRequest struct {
	// CREATE (the default) or UPDATE.
	Operation string          `json:"operation"`
	Object    json.RawMessage `json:"object"`
	// The stored object an UPDATE replaces.
	OldObject json.RawMessage `json:"oldObject,omitempty"`
	// The namespace of the request (kubectl's context namespace); for a namespaced kind the object's own, else
	// "default", when empty.
	Namespace string `json:"namespace,omitempty"`
	// "Strict" (kubectl's default: an unknown or duplicate field refuses the request), or "Ignore" (pruned
	// silently: how the API server treats what a mutating webhook's patch adds).
	FieldValidation string `json:"fieldValidation,omitempty"`
	// Stop after decoding, pruning and defaulting: the object as a mutating admission webhook would receive it.
	DecodeOnly bool `json:"decodeOnly,omitempty"`
	// Only read the object as the API server reads a stored object back from etcd (leniently, malformed metadata
	// dropped, pruned and defaulted): the old object an update's webhooks and rules are given.
	AsStored bool `json:"asStored,omitempty"`
	// "status": an UPDATE through the status subresource (PUT .../status), as its strategy takes one: everything but
	// the status kept from the stored object, the status validated against the status schema alone (ratcheted),
	// the CEL rules of the whole object. A version without the status subresource has no such path: 404.
	Subresource string `json:"subresource,omitempty"`
	// Validate the object as it stands: read as stored, then the whole of it (its status too) judged against the
	// version's schema and rules as a create judges them, without a create's preparation and without ratcheting.
	AsItStands bool `json:"asItStands,omitempty"`
}

type fieldProblem struct {
	Type   string `json:"type"`
	Field  string `json:"field"`
	Detail string `json:"detail"`
}

type judgeAnswer struct {
	Allowed bool `json:"allowed"`
	// On a refusal, the Status the API server answers with.
	Status *statusAnswer `json:"status,omitempty"`
	// Unknown fields the strict decoder met, as paths (`spec.foo`), and its other complaints (duplicate fields).
	UnknownFields []string `json:"unknownFields,omitempty"`
	StrictErrors  []string `json:"strictErrors,omitempty"`
	Warnings      []string `json:"warnings,omitempty"`
	// The object after decoding, pruning and defaulting, and (unless decodeOnly) after what create or update
	// prepares before validating it (the status dropped or kept from the old object), without the metadata the
	// server fills in itself (uid, creationTimestamp, generation, a generated name).
	Object map[string]interface{} `json:"object,omitempty"`
	// A failure of the engine itself, or of its caller (an unknown handle, a request that is not JSON).
	Error string `json:"error,omitempty"`
}

type statusAnswer struct {
	Code    int32          `json:"code"`
	Reason  string         `json:"reason"`
	Message string         `json:"message"`
	Causes  []fieldProblem `json:"causes,omitempty"`
}

// The loaded CRDs, by the handle load gave out. A handle lives as long as the instance: crdgate loads each CRD once.
// The native process answers requests at once (serve_native.go): the map is shared, a loaded CRD is read-only.
var (
	loadedMu   sync.RWMutex
	loaded     = map[int32]*engineCRD{}
	lastHandle int32
)

func answerLoad(input []byte) (out []byte) {
	defer func() {
		if p := recover(); p != nil {
			out = mustJSON(loadAnswer{Refusal: []fieldProblem{}, Error: panicText(p)})
		}
	}()
	crd, refusal, err := compileCRD(input)
	answer := loadAnswer{Refusal: problemsOf(refusal)}
	if err != nil {
		answer.Error = err.Error()
		return mustJSON(answer)
	}
	loadedMu.Lock()
	lastHandle++
	handle := lastHandle
	loaded[handle] = crd
	loadedMu.Unlock()
	answer.Handle, answer.Group, answer.Kind, answer.Versions = handle, crd.group, crd.kind, crd.versionNames()
	return mustJSON(answer)
}

func answerJudge(handle int32, input []byte) (out []byte) {
	defer func() {
		if p := recover(); p != nil {
			out = mustJSON(judgeAnswer{Error: panicText(p)})
		}
	}()
	loadedMu.RLock()
	crd := loaded[handle]
	loadedMu.RUnlock()
	if crd == nil {
		return mustJSON(judgeAnswer{Error: fmt.Sprintf("no CRD is loaded under handle %d", handle)})
	}
	var request judgeRequest
	if err := json.Unmarshal(input, &request); err != nil {
		return mustJSON(judgeAnswer{Error: "the request is not JSON: " + err.Error()})
	}
	return mustJSON(crd.judge(&request))
}

func answerForget(handle int32) {
	loadedMu.Lock()
	delete(loaded, handle)
	loadedMu.Unlock()
}

func panicText(p interface{}) string {
	stack := string(debug.Stack())
	if len(stack) > 2000 {
		stack = stack[:2000]
	}
	return fmt.Sprintf("the engine panicked: %v\n%s", p, stack)
}

func mustJSON(v interface{}) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(judgeAnswer{Error: "encoding the answer: " + err.Error()})
	}
	return b
}
