package main

import (
	"context"
	"net/http"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	sigsjson "sigs.k8s.io/json"
)

var geoDatabaseKind = schema.GroupKind{Group: "geo.example.com", Kind: "GeoDatabase"}

// geoDatabaseValidator is the admission.Handler: strict typed decode, then the rules, every field error in one
// 422 as apierrors.NewInvalid builds it (what a kubebuilder validator returning an error list answers).
type geoDatabaseValidator struct{}

func (geoDatabaseValidator) Handle(_ context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return admission.Allowed("")
	}
	var db GeoDatabase
	// Strict like the API server's fieldValidation=Strict: every unknown or duplicated field is reported, and the
	// rest of the object is still decoded, so those errors join the rule errors below.
	strictErrs, err := sigsjson.UnmarshalStrict(req.Object.Raw, &db, sigsjson.DisallowUnknownFields, sigsjson.DisallowDuplicateFields)
	if err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	errs := validateGeoDatabase(&db)
	for _, strictErr := range strictErrs {
		errs = append(errs, strictDecodeError(strictErr))
	}
	if len(errs) == 0 {
		return admission.Allowed("")
	}
	status := apierrors.NewInvalid(geoDatabaseKind, req.Name, errs).Status()
	return admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{Allowed: false, Result: &status}}
}

// strictDecodeError turns `unknown field "spec.colour"` into a field error on spec.colour.
func strictDecodeError(err error) *field.Error {
	message := err.Error()
	start, end := strings.Index(message, `"`), strings.LastIndex(message, `"`)
	if start < 0 || end <= start {
		return field.InternalError(nil, err)
	}
	return field.Forbidden(pathOf(message[start+1:end]), strings.TrimSpace(message[:start]))
}

// pathOf parses `spec.caches[0].name` back into a field.Path.
func pathOf(text string) *field.Path {
	var path *field.Path
	for _, segment := range strings.Split(text, ".") {
		name, indexes, _ := strings.Cut(segment, "[")
		if path == nil {
			path = field.NewPath(name)
		} else {
			path = path.Child(name)
		}
		if indexes != "" {
			for _, index := range strings.Split(strings.TrimSuffix(indexes, "]"), "][") {
				path = path.Key(index)
			}
		}
	}
	return path
}
