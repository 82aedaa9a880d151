package main

import (
	"context"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// refuseCRD is kube-apiserver's own check of a CustomResourceDefinition being created: names, versions, a structural
// schema, defaults that pass it, x-kubernetes-validations rules that compile and fit the cost limits. It answers the
// errors the API server would refuse the CRD with, or nil.
func refuseCRD(v1CRD *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	internal := &apiextensions.CustomResourceDefinition{}
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(v1CRD, internal, nil); err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	return crdvalidation.ValidateCustomResourceDefinition(context.Background(), internal)
}

func problemsOf(errs field.ErrorList) []fieldProblem {
	problems := make([]fieldProblem, 0, len(errs))
	for _, e := range errs {
		problems = append(problems, fieldProblem{Type: string(e.Type), Field: e.Field, Detail: e.ErrorBody()})
	}
	return problems
}
