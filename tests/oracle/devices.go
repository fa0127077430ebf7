// "devices" (issue 78, SPEC 24): whether the structured allocator of k8s.io/dynamic-resource-allocation, as kube-
// scheduler's DynamicResources plugin runs it for a Pod on one node, allocates the Pod's ResourceClaims there, from the
// node's ResourceSlices and the cluster's DeviceClasses (CEL selectors compiled by its own cache), on an empty node:
//
//	{"devices": [{"node": Node, "slices": [ResourceSlice...], "classes": [DeviceClass...],
//	              "claims": [ResourceClaim...]}...]}  (resource.k8s.io/v1)
//	{"devices": [{"allocated": bool, "error": ""}...]}
//
// Each claim is defaulted as the API server stores it. "allocated": every claim got its devices on the node; "error": why the allocator could not judge (a class that does
// not exist, a CEL expression that does not compile), "" otherwise.
package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/resource/install" // resource.k8s.io's defaults, as the API server registers them
)

type devicesCase struct {
	Node    *v1.Node                     `json:"node"`
	Slices  []*resourceapi.ResourceSlice `json:"slices"`
	Classes []*resourceapi.DeviceClass   `json:"classes"`
	Claims  []*resourceapi.ResourceClaim `json:"claims"`
}

// kube-scheduler's default DynamicResources filterTimeout is 10 s; the oracle waits less for a search that cannot
// succeed (the cases' devices are interchangeable: one that can is found at once)
const filterTimeout = 2 * time.Second

type classLister []*resourceapi.DeviceClass

func (l classLister) List() ([]*resourceapi.DeviceClass, error) { return l, nil }

func (l classLister) Get(name string) (*resourceapi.DeviceClass, error) {
	for _, class := range l {
		if class.Name == name {
			return class, nil
		}
	}
	return nil, fmt.Errorf("device class %s not found", name)
}

func allocate(ctx context.Context, c devicesCase) map[string]any {
	// the features kube-scheduler 1.37 turns on by default for a GA DRA (prioritized lists are beta, on)
	features := structured.Features{PrioritizedList: true}
	state := structured.AllocatedState{AllocatedDevices: sets.New[structured.DeviceID](),
		AllocatedSharedDeviceIDs: sets.New[structured.SharedDeviceID](),
		AggregatedCapacity:       structured.NewConsumedCapacityCollection()}
	allocator, err := structured.NewAllocator(ctx, features, state, classLister(c.Classes), c.Slices,
		cel.NewCache(100, cel.Features{}))
	if err != nil {
		return map[string]any{"allocated": false, "error": err.Error()}
	}
	for _, claim := range c.Claims {
		legacyscheme.Scheme.Default(claim) // (allocationMode ExactCount and count 1 where a request writes none)
	}
	// as kube-scheduler bounds it (DRASchedulerFilterTimeout): a search that does not end is its error for the node,
	// retried in backoff, never an allocation there
	bounded, cancel := context.WithTimeout(ctx, filterTimeout)
	defer cancel()
	results, err := allocator.Allocate(bounded, c.Node, c.Claims)
	if errors.Is(err, context.DeadlineExceeded) {
		return map[string]any{"allocated": false, "error": "", "timedOut": true}
	}
	if err != nil {
		return map[string]any{"allocated": false, "error": err.Error()}
	}
	return map[string]any{"allocated": results != nil, "error": "", "timedOut": false}
}
