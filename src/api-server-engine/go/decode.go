package main

import (
	"fmt"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured/unstructuredscheme"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
)

// How a body is read. A request body is read strictly (fieldValidation=Strict); the stored object of an UPDATE is
// read the way the server reads it back from etcd: leniently, dropping metadata it cannot use.
type readMode struct {
	strict      bool
	fromStorage bool
}

var (
	requestReader = readMode{strict: true}
	patchedReader = readMode{}
	storageReader = readMode{fromStorage: true}
)

var (
	strictJSON  = kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, unstructuredscheme.NewUnstructuredCreator(), unstructuredscheme.NewUnstructuredObjectTyper(), kjson.SerializerOptions{Strict: true})
	lenientJSON = kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, unstructuredscheme.NewUnstructuredCreator(), unstructuredscheme.NewUnstructuredObjectTyper(), kjson.SerializerOptions{})
)

// readObject is what the custom-resource codec does to a body before anything else sees the object: JSON decoding
// (integers stay int64; with strict, a duplicate field is noted), the schema's shaping (unknown fields pruned and,
// with strict, noted by path), then the schema's defaults.
type readObject struct {
	object        *unstructured.Unstructured
	version       *servedVersion
	unknownFields []string
	strictErrors  []string
}

// badRequest is a body the API server answers 400 to before judging anything.
type badRequest struct{ message string }

func (b badRequest) Error() string { return b.message }

func (c *engineCRD) read(body []byte, mode readMode) (*readObject, error) {
	decoder := lenientJSON
	if mode.strict {
		decoder = strictJSON
	}
	u := &unstructured.Unstructured{}
	read := &readObject{object: u}
	if _, _, err := decoder.Decode(body, nil, u); err != nil {
		strictErr, isStrict := runtime.AsStrictDecodingError(err)
		if !isStrict {
			return nil, badRequest{c.cannotHandle(u, err)}
		}
		for _, complaint := range strictErr.Errors() {
			read.strictErrors = append(read.strictErrors, complaint.Error())
		}
	}
	gv, err := schema.ParseGroupVersion(u.GetAPIVersion())
	if err != nil {
		return nil, badRequest{err.Error()}
	}
	if gv.Group != c.group || u.GetKind() != c.kind {
		return nil, badRequest{fmt.Sprintf("the object is a %s of %s, not a %s of %s", u.GetKind(), u.GetAPIVersion(), c.kind, c.group)}
	}
	read.version = c.versions[gv.Version]
	if read.version == nil {
		return nil, badRequest{fmt.Sprintf("%s does not serve version %q of %s", c.group, gv.Version, c.kind)}
	}
	unknown, err := read.version.shape(u.Object, mode)
	if err != nil {
		return nil, badRequest{c.cannotHandle(u, err)}
	}
	read.unknownFields = unknown
	structuraldefaulting.Default(u.Object, read.version.structural)
	return read, nil
}

// cannotHandle words a body the decoder refuses as the API server's create and update handlers do.
func (c *engineCRD) cannotHandle(u *unstructured.Unstructured, err error) string {
	gvk := u.GroupVersionKind()
	if gvk.Kind == "" {
		return fmt.Sprintf("the object provided is unrecognized (must be of type %s): %v", c.kind, err)
	}
	return fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", gvk.Kind, gvk.Version, c.kind, err)
}

// shape brings a decoded object into the form its schema allows, as the server's schema coercion does on every
// decode. apiVersion, kind and metadata are set aside first and put back last: ObjectMeta is read by its own rules
// (its unknown fields noted, and from storage its malformed fields dropped), not by the schema; pruning may only
// drop fields the schema does not know; a null the schema neither allows nor defaults is dropped; the ObjectMeta of
// embedded resources (x-kubernetes-embedded-resource) is read by ObjectMeta's rules too. It returns the unknown
// fields' paths when reading strictly.
func (v *servedVersion) shape(object map[string]interface{}, mode readMode) ([]string, error) {
	envelope, err := takeEnvelope(object, mode)
	if err != nil {
		return nil, err
	}
	unknown := envelope.unknownMetadata
	if !v.keepUnknown {
		unknown = append(unknown, structuralpruning.PruneWithOptions(object, v.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: mode.strict})...)
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(object, v.structural)
	}
	// (A *field.Error, kept out of the error variable: a nil one must stay nil.)
	embeddedErr, embeddedUnknown := schemaobjectmeta.CoerceWithOptions(nil, object, v.structural, false, schemaobjectmeta.CoerceOptions{
		DropInvalidFields:       mode.fromStorage,
		ReturnUnknownFieldPaths: mode.strict,
	})
	if embeddedErr != nil {
		return nil, embeddedErr
	}
	unknown = append(unknown, embeddedUnknown...)
	return unknown, envelope.restore(object)
}

// envelope: an object's apiVersion, kind and ObjectMeta, as found.
type envelope struct {
	apiVersion, kind *string
	metadata         *metav1.ObjectMeta
	unknownMetadata  []string
}

func takeEnvelope(object map[string]interface{}, mode readMode) (*envelope, error) {
	e := &envelope{}
	for _, key := range []string{"apiVersion", "kind"} {
		value, found, err := unstructured.NestedString(object, key)
		if err != nil {
			return nil, err
		}
		if found {
			if key == "kind" {
				e.kind = &value
			} else {
				e.apiVersion = &value
			}
		}
	}
	metadata, found, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(object, schemaobjectmeta.ObjectMetaOptions{
		DropMalformedFields:     mode.fromStorage,
		ReturnUnknownFieldPaths: mode.strict,
	})
	if err != nil {
		return nil, err
	}
	if found {
		e.metadata = metadata
	}
	e.unknownMetadata = unknown
	return e, nil
}

func (e *envelope) restore(object map[string]interface{}) error {
	if e.apiVersion != nil {
		object["apiVersion"] = *e.apiVersion
	}
	if e.kind != nil {
		object["kind"] = *e.kind
	}
	if e.metadata != nil {
		return schemaobjectmeta.SetObjectMeta(object, e.metadata)
	}
	return nil
}
