package main

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// GeoDatabase v1 as a Go operator author would declare it (kubebuilder style): typed structs, pointers for the
// optional fields whose zero value means something else than "not set".
type GeoDatabase struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   *GeoDatabaseSpec   `json:"spec,omitempty"`
	Status *GeoDatabaseStatus `json:"status,omitempty"`
}

type GeoDatabaseSpec struct {
	Postgres     *PostgresSpec `json:"postgres,omitempty"`
	ReadReplicas *int32        `json:"readReplicas,omitempty"`
	Storage      *StorageSpec  `json:"storage,omitempty"`
	Caches       []CacheSpec   `json:"caches,omitempty"`
}

type PostgresSpec struct {
	Version *string `json:"version,omitempty"`
	Postgis *string `json:"postgis,omitempty"`
}

type StorageSpec struct {
	Size             *string `json:"size,omitempty"`
	StorageClassName *string `json:"storageClassName,omitempty"`
}

type CacheSpec struct {
	Name     *string `json:"name,omitempty"`
	Version  *string `json:"version,omitempty"`
	Memory   *string `json:"memory,omitempty"`
	Replicas *int32  `json:"replicas,omitempty"`
}

type GeoDatabaseStatus struct {
	Phase              string             `json:"phase,omitempty"`
	ObservedGeneration *int64             `json:"observedGeneration,omitempty"`
	ReadyReplicas      *int32             `json:"readyReplicas,omitempty"`
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
}
