package main

import (
	"encoding/json"
	"fmt"
	"sort"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemavalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"
)

// engineCRD is one CustomResourceDefinition made ready to judge objects, each served version compiled once (the
// structural schema, the OpenAPI validator, the CEL programs), as kube-apiserver does when it starts serving it.
type engineCRD struct {
	group    string
	kind     string
	versions map[string]*servedVersion
}

// servedVersion holds what kube-apiserver builds for one version of a CRD.
type servedVersion struct {
	gvk        schema.GroupVersionKind
	namespaced bool
	// With spec.preserveUnknownFields (apiextensions.k8s.io/v1beta1 CRDs only), nothing is pruned.
	keepUnknown bool
	// The version's structural schema, its defaults already pruned of unknown fields as the server keeps them.
	structural *structuralschema.Structural
	// What create and update prepare and validate (rules.go).
	strategy storeStrategy
	// What an update through the status subresource prepares and validates (status.go); nil without one.
	statusStrategy storeStrategy
}

// storeStrategy is the part of the custom-resource registry strategy that rest.BeforeCreate and rest.BeforeUpdate use.
type storeStrategy interface {
	rest.RESTCreateStrategy
	rest.RESTUpdateStrategy
}

func (c *engineCRD) versionNames() []string {
	names := make([]string, 0, len(c.versions))
	for name := range c.versions {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// compileCRD reads a v1 CRD and compiles each of its served versions. refusal is what kube-apiserver would answer
// to creating the CRD (nil when it would accept it); an object can still be judged against a refused CRD as long as
// its schemas compile, so that the refusal and the objects' verdicts can be reported together.
func compileCRD(input []byte) (*engineCRD, field.ErrorList, error) {
	v1CRD := &apiextensionsv1.CustomResourceDefinition{}
	if err := json.Unmarshal(input, v1CRD); err != nil {
		return nil, nil, fmt.Errorf("the CustomResourceDefinition cannot be read: %w", err)
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(v1CRD)
	refusal := refuseCRD(v1CRD)

	crd := &engineCRD{group: v1CRD.Spec.Group, kind: v1CRD.Spec.Names.Kind, versions: map[string]*servedVersion{}}
	for _, version := range v1CRD.Spec.Versions {
		if !version.Served {
			continue
		}
		served, err := compileVersion(v1CRD, version.Name)
		if err != nil {
			return nil, refusal, fmt.Errorf("version %s cannot be served: %w", version.Name, err)
		}
		crd.versions[version.Name] = served
	}
	if len(crd.versions) == 0 {
		return nil, refusal, fmt.Errorf("the CustomResourceDefinition serves no version")
	}
	return crd, refusal, nil
}

func compileVersion(crd *apiextensionsv1.CustomResourceDefinition, version string) (*servedVersion, error) {
	served := &servedVersion{
		gvk:         schema.GroupVersionKind{Group: crd.Spec.Group, Version: version, Kind: crd.Spec.Names.Kind},
		namespaced:  crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
		keepUnknown: crd.Spec.PreserveUnknownFields,
	}

	var props *apiextensions.JSONSchemaProps
	v1Validation, err := apihelpers.GetSchemaForVersion(crd, version)
	if err != nil {
		return nil, err
	}
	if v1Validation != nil {
		validation := &apiextensions.CustomResourceValidation{}
		if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v1Validation, validation, nil); err != nil {
			return nil, err
		}
		props = validation.OpenAPIV3Schema
		structural, err := structuralschema.NewStructural(props)
		if err != nil && !served.keepUnknown {
			return nil, fmt.Errorf("the schema is not structural: %w", err)
		}
		if !served.keepUnknown {
			// The server prunes unknown fields out of the defaults of its own copy before applying them.
			structural = structural.DeepCopy()
			if err := structuraldefaulting.PruneDefaults(structural); err != nil {
				return nil, fmt.Errorf("its defaults cannot be pruned: %w", err)
			}
		}
		served.structural = structural
	}

	openAPIValidator, _, err := schemavalidation.NewSchemaValidator(props)
	if err != nil {
		return nil, err
	}
	subresources, err := apihelpers.GetSubresourcesForVersion(crd, version)
	if err != nil {
		return nil, err
	}
	var scale *apiextensions.CustomResourceSubresourceScale
	if subresources != nil && subresources.Scale != nil {
		scale = &apiextensions.CustomResourceSubresourceScale{}
		if err := apiextensionsv1.Convert_v1_CustomResourceSubresourceScale_To_apiextensions_CustomResourceSubresourceScale(subresources.Scale, scale, nil); err != nil {
			return nil, err
		}
	}
	statusIsSub := subresources != nil && subresources.Status != nil
	rules := newObjectRules(served, openAPIValidator, statusIsSub, scale)
	served.strategy = rules
	if statusIsSub {
		// As the API server builds it: a validator of the status schema alone, when the schema has one.
		var statusValidator schemavalidation.SchemaValidator
		if props != nil && props.Properties != nil {
			if statusSchema, ok := props.Properties["status"]; ok {
				if statusValidator, _, err = schemavalidation.NewSchemaValidator(&statusSchema); err != nil {
					return nil, err
				}
			}
		}
		served.statusStrategy = &statusRules{objectRules: rules, statusValidator: statusValidator}
	}
	return served, nil
}
