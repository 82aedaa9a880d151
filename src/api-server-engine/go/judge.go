package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/warning"
)

// judge answers what kube-apiserver answers to a create or update of one object, up to (not including) storing it:
//
//  1. the body is read (readObject): decoded, shaped by the schema, defaulted; with fieldValidation=Strict an
//     unknown or duplicate field refuses it with 400, as the handler does, before anything is validated;
//  2. (decodeOnly stops here: this is what a mutating admission webhook receives);
//  3. the registry's preparation and validation, through the very functions the generic registry store calls:
//     rest.BeforeCreate or rest.BeforeUpdate with the custom-resource strategy. They set the namespace from the
//     request, drop or keep the status (status subresource), validate ObjectMeta, the OpenAPI schema (ratcheting
//     unchanged values on update), the scale paths, embedded resources, list-type invariants and the CEL rules, and
//     refuse with 422 and the API server's own message and causes.
func (c *engineCRD) judge(request *judgeRequest) judgeAnswer {
	if request.AsStored {
		return c.readStored(request.Object)
	}
	if request.AsItStands {
		return c.validateAsItStands(request)
	}
	update := strings.EqualFold(request.Operation, "UPDATE")
	status := strings.EqualFold(request.Subresource, "status")
	if request.Subresource != "" && (!status || !update) {
		return judgeAnswer{Error: fmt.Sprintf("subresource %q: only an UPDATE of status is judged", request.Subresource)}
	}
	mode := requestReader
	if strings.EqualFold(request.FieldValidation, "Ignore") {
		mode = patchedReader
	}
	read, err := c.read(request.Object, mode)
	if err != nil {
		return refused(err)
	}
	answer := judgeAnswer{UnknownFields: read.unknownFields, StrictErrors: read.strictErrors}
	// With fieldValidation=Warn the same complaints are the answer's first warnings, in the same order, and the
	// object goes on pruned, as the handler does it.
	var fieldWarnings []string
	if complaints := append(append([]string{}, read.strictErrors...), quoted("unknown field", read.unknownFields)...); len(complaints) > 0 {
		if !strings.EqualFold(request.FieldValidation, "Warn") {
			answer.Status = &statusAnswer{
				Code:    http.StatusBadRequest,
				Reason:  string(metav1.StatusReasonBadRequest),
				Message: c.cannotHandle(read.object, fmt.Errorf("strict decoding error: %s", strings.Join(complaints, ", "))),
			}
			return answer
		}
		fieldWarnings = complaints
	}
	if request.DecodeOnly {
		answer.Allowed, answer.Object, answer.Warnings = true, read.object.Object, fieldWarnings
		return answer
	}

	object := read.object
	// What the client sent is what the answer shows: the server's own additions to metadata are left out.
	sentMetadata := runtime.DeepCopyJSONValue(object.Object["metadata"])
	warnings := &warningList{}
	ctx := warning.WithWarningRecorder(context.Background(), warnings)
	ctx = genericapirequest.WithNamespace(ctx, requestNamespace(request, read))
	strategy := read.version.strategy
	if status {
		if read.version.statusStrategy == nil {
			return refused(apierrors.NewNotFound(schema.GroupResource{Group: c.group, Resource: strings.ToLower(c.kind) + "/status"}, read.object.GetName()))
		}
		strategy = read.version.statusStrategy
	}
	if update {
		old, err := c.read(request.OldObject, storageReader)
		if err != nil {
			return judgeAnswer{Error: "the old object: " + err.Error()}
		}
		asStoredAndFetched(object, old, ctx)
		err = rest.BeforeUpdate(strategy, ctx, object, old.object)
		if err != nil {
			return withWarnings(refusedAfterPreparing(err, object, sentMetadata), fieldWarnings)
		}
	} else {
		if object.GetGenerateName() != "" && object.GetName() == "" {
			object.SetName(strategy.GenerateName(object.GetGenerateName()))
		}
		rest.FillObjectMetaSystemFields(object)
		if err := rest.BeforeCreate(strategy, ctx, object); err != nil {
			return withWarnings(refusedAfterPreparing(err, object, sentMetadata), fieldWarnings)
		}
	}
	answer.Allowed, answer.Object, answer.Warnings = true, asSent(object, sentMetadata), append(fieldWarnings, warnings.texts...)
	return answer
}

// validateAsItStands is what the object holds, judged as it stands: read as a stored object is read back (pruned,
// defaulted), then validated whole (metadata, the OpenAPI schema with its status, the scale paths, embedded
// resources, list invariants, the CEL rules as for a create) by the strategy's own Validate, without PrepareForCreate
// (which would drop the status) and without an old object (nothing is ratcheted, transition rules do not run).
func (c *engineCRD) validateAsItStands(request *judgeRequest) judgeAnswer {
	read, err := c.read(request.Object, storageReader)
	if err != nil {
		return refused(err)
	}
	object := read.object
	namespace := requestNamespace(request, read)
	// A stored object of a namespaced kind has its namespace; a manifest may leave it to the request, as a create's
	// rest.BeforeCreate would fill it in.
	if read.version.namespaced && object.GetNamespace() == "" {
		object.SetNamespace(namespace)
	}
	ctx := genericapirequest.WithNamespace(context.Background(), namespace)
	if errs := read.version.strategy.Validate(ctx, object); len(errs) > 0 {
		answer := refused(apierrors.NewInvalid(object.GroupVersionKind().GroupKind(), object.GetName(), errs))
		answer.Object = object.Object
		return answer
	}
	return judgeAnswer{Allowed: true, Object: object.Object}
}

// readStored is the object as the API server holds it once stored: what a GET answers, and what an update's
// admission webhooks receive as the old object. The read that judge gives an update's old object.
func (c *engineCRD) readStored(body []byte) judgeAnswer {
	read, err := c.read(body, storageReader)
	if err != nil {
		return refused(err)
	}
	return judgeAnswer{Allowed: true, Object: read.object.Object}
}

// withWarnings puts the field validation's warnings before the answer's own.
func withWarnings(answer judgeAnswer, fieldWarnings []string) judgeAnswer {
	answer.Warnings = append(append([]string{}, fieldWarnings...), answer.Warnings...)
	return answer
}

// refusedAfterPreparing is a refusal that also carries the object as the strategy prepared it before validating
// (status dropped on a create, kept from the old object on an update), so that what crdgate's own rules add to the
// refusal is decided on the same object.
func refusedAfterPreparing(err error, object *unstructured.Unstructured, sentMetadata interface{}) judgeAnswer {
	answer := refused(err)
	answer.Object = asSent(object, sentMetadata)
	return answer
}

// asSent is the object with the metadata the client sent, not the server's own additions to it.
func asSent(object *unstructured.Unstructured, sentMetadata interface{}) map[string]interface{} {
	if sentMetadata == nil {
		delete(object.Object, "metadata")
	} else {
		object.Object["metadata"] = sentMetadata
	}
	return object.Object
}

// requestNamespace is the namespace a client such as kubectl would send the request to: the object's own, else
// the context's default. For a cluster-scoped kind, rest.BeforeCreate ignores it.
func requestNamespace(request *judgeRequest, read *readObject) string {
	if request.Namespace != "" {
		return request.Namespace
	}
	if namespace := read.object.GetNamespace(); namespace != "" {
		return namespace
	}
	if read.version.namespaced {
		return metav1.NamespaceDefault
	}
	return metav1.NamespaceNone
}

// refused turns the API server's error into the answer: a StatusError keeps its code, reason, message and causes.
func refused(err error) judgeAnswer {
	var status apierrors.APIStatus
	var bad badRequest
	switch {
	case errors.As(err, &status):
		s := status.Status()
		answer := &statusAnswer{Code: s.Code, Reason: string(s.Reason), Message: s.Message}
		if s.Details != nil {
			for _, cause := range s.Details.Causes {
				answer.Causes = append(answer.Causes, fieldProblem{Type: string(cause.Type), Field: cause.Field, Detail: cause.Message})
			}
		}
		return judgeAnswer{Status: answer}
	case errors.As(err, &bad):
		return judgeAnswer{Status: &statusAnswer{Code: http.StatusBadRequest, Reason: string(metav1.StatusReasonBadRequest), Message: bad.message}}
	default:
		return judgeAnswer{Status: &statusAnswer{Code: http.StatusInternalServerError, Reason: string(metav1.StatusReasonInternalError), Message: err.Error()}}
	}
}

func quoted(what string, paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, path := range paths {
		out = append(out, fmt.Sprintf("%s %q", what, path))
	}
	return out
}

// warningList collects what the registry would send back as Warning headers.
type warningList struct{ texts []string }

func (w *warningList) AddWarning(_, text string) { w.texts = append(w.texts, text) }

// asStoredAndFetched gives a manifest of the old object what the stored object has and a client sends back: a
// stored object of a namespaced kind has its namespace, and an update (kubectl apply's patch, or a replace after a
// get) carries the stored resourceVersion.
func asStoredAndFetched(object *unstructured.Unstructured, old *readObject, ctx context.Context) {
	if namespace, _ := genericapirequest.NamespaceFrom(ctx); old.version.namespaced && old.object.GetNamespace() == "" {
		old.object.SetNamespace(namespace)
	}
	if old.object.GetResourceVersion() == "" {
		old.object.SetResourceVersion("1")
	}
	if object.GetResourceVersion() == "" {
		object.SetResourceVersion(old.object.GetResourceVersion())
	}
}
