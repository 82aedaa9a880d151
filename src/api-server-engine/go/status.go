package main

import (
	"context"

	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemavalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	metavalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/cel/common"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
)

// statusRules is what an update through the status subresource prepares and validates: kube-apiserver's
// custom-resource status strategy (registry/customresource/status_strategy.go), standing in for it as objectRules
// stands in for the main one, and driven by the same rest.BeforeUpdate.
type statusRules struct {
	*objectRules
	// The validator of the status schema alone (nil when the schema declares no status).
	statusValidator schemavalidation.SchemaValidator
}

// PrepareForUpdate: a status write changes the status only. The stored object is taken whole, with the status (and
// the managedFields) the request sent; the generation does not move.
func (r *statusRules) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	u, stored := obj.(*unstructured.Unstructured), old.(*unstructured.Unstructured)
	status, sent := u.Object["status"]
	managedFields := u.GetManagedFields()
	*u = *stored.DeepCopy()
	u.SetManagedFields(managedFields)
	if sent {
		u.Object["status"] = status
	} else {
		delete(u.Object, "status")
	}
}

// ValidateUpdate, in the status strategy's order: ObjectMeta against the old one, the status against the status
// schema (ratcheted from the status down), the scale subresource's status paths, list-type invariants (unless the old
// object already broke them), then the CEL rules of the whole object, ratcheted, unless a fault before them blocks.
func (r *statusRules) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	u, stored := obj.(*unstructured.Unstructured), old.(*unstructured.Unstructured)
	var correlated *common.CorrelatedObject
	var schemaOptions []schemavalidation.ValidationOption
	if utilfeature.DefaultFeatureGate.Enabled(apiextensionsfeatures.CRDValidationRatcheting) {
		correlated = common.NewCorrelatedObject(u.Object, stored.Object, &model.Structural{Structural: r.structural})
		if r.structural != nil {
			schemaOptions = append(schemaOptions, schemavalidation.WithRatcheting(correlated.Key("status")))
		}
	}
	if errs := r.typeMetaProblems(u); len(errs) > 0 {
		return errs
	}
	errs := metavalidation.ValidateObjectMetaAccessorUpdate(u, stored, field.NewPath("metadata"))
	if status, hasStatus := u.Object["status"]; hasStatus && r.statusValidator != nil {
		errs = append(errs, schemavalidation.ValidateCustomResourceUpdate(field.NewPath("status"), status, stored.Object["status"], r.statusValidator, schemaOptions...)...)
	}
	errs = append(errs, r.statusScaleProblems(u)...)
	if listErrs := structurallisttype.ValidateListSetsAndMaps(nil, r.structural, u.Object); len(listErrs) > 0 {
		if len(structurallisttype.ValidateListSetsAndMaps(nil, r.structural, stored.Object)) == 0 {
			errs = append(errs, listErrs...)
		}
	}
	return append(errs, r.ruleProblems(ctx, errs, u, stored, correlated)...)
}

// statusScaleProblems: what the status strategy checks of the scale subresource, the status replicas and the
// selector; the spec replicas are not its business.
func (r *statusRules) statusScaleProblems(u *unstructured.Unstructured) field.ErrorList {
	if r.scale == nil {
		return nil
	}
	return r.scaleCountProblems(u, r.scale.StatusReplicasPath)
}
