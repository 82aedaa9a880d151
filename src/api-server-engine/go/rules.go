package main

import (
	"context"
	"fmt"
	"math"
	"strings"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	schemavalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metavalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured/unstructuredscheme"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage/names"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
)

// objectRules is what create and update do to a custom resource of one served version before storing it: the
// preparation and validation that kube-apiserver's custom-resource registry strategy performs. That strategy's
// package cannot be built for WebAssembly (it brings the etcd storage along), so this type stands in for it, built
// from the same exported pieces, and is driven by the generic registry's own rest.BeforeCreate and
// rest.BeforeUpdate (which add the namespace, system-field and ObjectMeta checks around it).
//
// Validation in the order of v1.36, each kind of check adding to one list:
//   - apiVersion and kind must be the version's; if not, nothing else is checked;
//   - ObjectMeta (on update, against the old one), then the OpenAPI schema, which on update ratchets: an invalid
//     value that did not change is let through;
//   - the scale subresource's replica paths must hold int32s, its selector path a string;
//   - the ObjectMeta of embedded resources; list-type set and map uniqueness (on update only when the old object
//     had none of those faults);
//   - the x-kubernetes-validations rules, unless an earlier fault means the rules could be misled (a wrong type,
//     a missing required field, an unsupported enum value, too long, too many), in which case one error says the
//     rules were not checked. On update they see oldSelf and ratchet.
type objectRules struct {
	runtime.ObjectTyper
	names.NameGenerator

	gvk         schema.GroupVersionKind
	namespaced  bool
	structural  *structuralschema.Structural
	openAPI     schemavalidation.SchemaValidator
	celRules    *cel.Validator
	statusIsSub bool
	scale       *apiextensions.CustomResourceSubresourceScale
}

var _ rest.RESTCreateStrategy = (*objectRules)(nil)
var _ rest.RESTUpdateStrategy = (*objectRules)(nil)

func newObjectRules(v *servedVersion, openAPI schemavalidation.SchemaValidator, statusIsSub bool, scale *apiextensions.CustomResourceSubresourceScale) *objectRules {
	return &objectRules{
		ObjectTyper:   unstructuredscheme.NewUnstructuredObjectTyper(),
		NameGenerator: names.SimpleNameGenerator,
		gvk:           v.gvk,
		namespaced:    v.namespaced,
		structural:    v.structural,
		openAPI:       openAPI,
		// The CEL programs of every rule in the schema, compiled here once, with the per-expression cost limit.
		celRules:    cel.NewValidator(v.structural, true, celconfig.PerCallLimit),
		statusIsSub: statusIsSub,
		scale:       scale,
	}
}

func (r *objectRules) NamespaceScoped() bool          { return r.namespaced }
func (r *objectRules) AllowCreateOnUpdate() bool      { return false }
func (r *objectRules) AllowUnconditionalUpdate() bool { return false }
func (r *objectRules) Canonicalize(runtime.Object)    {}

// The finalizer-name warnings the server sends are not reproduced.
func (r *objectRules) WarningsOnCreate(context.Context, runtime.Object) []string { return nil }
func (r *objectRules) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}

// PrepareForCreate: with a status subresource, a create cannot set the status; a new object is generation 1.
func (r *objectRules) PrepareForCreate(_ context.Context, obj runtime.Object) {
	u := obj.(*unstructured.Unstructured)
	if r.statusIsSub {
		delete(u.Object, "status")
	}
	u.SetGeneration(1)
}

// PrepareForUpdate: with a status subresource, an update keeps the stored status whatever it sends; any change
// outside metadata moves the generation on.
func (r *objectRules) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	u, stored := obj.(*unstructured.Unstructured), old.(*unstructured.Unstructured)
	if r.statusIsSub {
		if status, ok := stored.Object["status"]; ok {
			u.Object["status"] = status
		} else {
			delete(u.Object, "status")
		}
	}
	if !apiequality.Semantic.DeepEqual(withoutMetadata(u.Object), withoutMetadata(stored.Object)) {
		u.SetGeneration(stored.GetGeneration() + 1)
	}
}

func withoutMetadata(object map[string]interface{}) map[string]interface{} {
	rest := make(map[string]interface{}, len(object))
	for key, value := range object {
		if key != "metadata" {
			rest[key] = value
		}
	}
	return rest
}

func (r *objectRules) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	u := obj.(*unstructured.Unstructured)
	if errs := r.typeMetaProblems(u); len(errs) > 0 {
		return errs
	}
	errs := metavalidation.ValidateObjectMetaAccessor(u, r.namespaced, metavalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	errs = append(errs, schemavalidation.ValidateCustomResource(nil, u.UnstructuredContent(), r.openAPI)...)
	errs = append(errs, r.scaleProblems(u)...)
	errs = append(errs, schemaobjectmeta.Validate(nil, u.Object, r.structural, false)...)
	errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, r.structural, u.Object)...)
	return append(errs, r.ruleProblems(ctx, errs, u, nil, nil)...)
}

func (r *objectRules) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	u, stored := obj.(*unstructured.Unstructured), old.(*unstructured.Unstructured)
	// Ratcheting (GA and locked on since v1.33): values are correlated between the two objects by path, list-map
	// key and map key, so that unchanged ones are not judged again.
	var correlated *common.CorrelatedObject
	var schemaOptions []schemavalidation.ValidationOption
	if utilfeature.DefaultFeatureGate.Enabled(apiextensionsfeatures.CRDValidationRatcheting) {
		correlated = common.NewCorrelatedObject(u.Object, stored.Object, &model.Structural{Structural: r.structural})
		schemaOptions = append(schemaOptions, schemavalidation.WithRatcheting(correlated))
	}
	if errs := r.typeMetaProblems(u); len(errs) > 0 {
		return errs
	}
	errs := metavalidation.ValidateObjectMetaAccessorUpdate(u, stored, field.NewPath("metadata"))
	errs = append(errs, schemavalidation.ValidateCustomResourceUpdate(nil, u.UnstructuredContent(), stored.UnstructuredContent(), r.openAPI, schemaOptions...)...)
	errs = append(errs, r.scaleProblems(u)...)
	errs = append(errs, schemaobjectmeta.Validate(nil, u.Object, r.structural, false)...)
	if len(structurallisttype.ValidateListSetsAndMaps(nil, r.structural, stored.Object)) == 0 {
		errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, r.structural, u.Object)...)
	}
	return append(errs, r.ruleProblems(ctx, errs, u, stored, correlated)...)
}

func (r *objectRules) typeMetaProblems(u *unstructured.Unstructured) field.ErrorList {
	var errs field.ErrorList
	if kind := u.GetKind(); kind != r.gvk.Kind {
		errs = append(errs, field.Invalid(field.NewPath("kind"), kind, "must be "+r.gvk.Kind))
	}
	if want := r.gvk.GroupVersion().String(); u.GetAPIVersion() != want {
		errs = append(errs, field.Invalid(field.NewPath("apiVersion"), u.GetAPIVersion(), "must be "+want))
	}
	return errs
}

// scaleProblems: the replica counts the scale subresource reads must be integers an int32 holds (a missing one
// reads as 0), and the selector it reads a string. A write of the object checks both counts; a status write only
// the status one.
func (r *objectRules) scaleProblems(u *unstructured.Unstructured) field.ErrorList {
	if r.scale == nil {
		return nil
	}
	return r.scaleCountProblems(u, r.scale.SpecReplicasPath, r.scale.StatusReplicasPath)
}

func (r *objectRules) scaleCountProblems(u *unstructured.Unstructured, replicasPaths ...string) field.ErrorList {
	var errs field.ErrorList
	for _, replicasPath := range replicasPaths {
		count, _, err := unstructured.NestedInt64(u.Object, jsonPathSteps(replicasPath)...)
		switch {
		case err != nil:
			errs = append(errs, field.Invalid(field.NewPath(replicasPath), count, err.Error()))
		case count < 0:
			errs = append(errs, field.Invalid(field.NewPath(replicasPath), count, "should be a non-negative integer"))
		case count > math.MaxInt32:
			errs = append(errs, field.Invalid(field.NewPath(replicasPath), count, fmt.Sprintf("should be less than or equal to %v", math.MaxInt32)))
		}
	}
	if selectorPath := r.scale.LabelSelectorPath; selectorPath != nil {
		if selector, _, err := unstructured.NestedString(u.Object, jsonPathSteps(*selectorPath)...); err != nil {
			errs = append(errs, field.Invalid(field.NewPath(*selectorPath), selector, err.Error()))
		}
	}
	return errs
}

// jsonPathSteps splits a scale path such as `.spec.replicas` into its steps.
func jsonPathSteps(path string) []string {
	return strings.Split(strings.TrimPrefix(path, "."), ".")
}

// ruleProblems evaluates the x-kubernetes-validations rules, within the runtime cost budget of one request, unless
// found already holds a fault that the rules' types depend on.
func (r *objectRules) ruleProblems(ctx context.Context, found field.ErrorList, u, stored *unstructured.Unstructured, correlated *common.CorrelatedObject) field.ErrorList {
	if r.celRules == nil {
		return nil
	}
	for _, e := range found {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return field.ErrorList{field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation")}
		}
	}
	var oldObject interface{}
	var options []cel.Option
	if stored != nil {
		oldObject = stored.Object
		if correlated != nil {
			options = append(options, cel.WithRatcheting(correlated))
		}
	}
	errs, _ := r.celRules.Validate(ctx, nil, r.structural, u.Object, oldObject, celconfig.RuntimeCELCostBudget, options...)
	return errs
}
