// The Go oracle (issue 46, SPEC 17): kube-scheduler's own Filter plugins and the controllers' own arithmetic,
// built from the Go module proxy (k8s.io/kubernetes, the release in go.mod), judging the pack's verdicts in
// tests/oracle/test_*.py. Built and cached by scripts/build-pulumi-cli (component "oracle") before pytest.
//
// It reads one JSON request on stdin and writes one JSON answer on stdout:
//
//	{"filter": [{"nodes": [Node...], "pods": [Pod...], "pod": Pod, "replicas": N, "admit": bool}...],
//	 "requests": [Pod...],
//	 "disruption": [{"minAvailable": IntOrString, "maxUnavailable": IntOrString, "expected": N, "healthy": N}...],
//	 "rollout": [{"maxSurge": IntOrString, "maxUnavailable": IntOrString, "replicas": N}...],
//	 "eviction": [{"budgets": [PodDisruptionBudget (policy/v1 or policy/v1beta1)...], "pods": [Pod...]}...],
//	 "removed": true,
//	 "podSecurity": [{"level": "baseline" | "restricted", "pod": Pod}...],
//	 "admission": [{"limitRanges": [LimitRange...], "runtimeClasses": [RuntimeClass...], "pod": Pod}...],
//	 "devices": [{"node": Node, "slices": [...], "classes": [...], "claims": [...]}...] (devices.go)}
//
//	{"filter": [{"nodes": {"<node>": "" | "<plugin>: <reasons>"}, "placed": K, "on": ["<node>"...]}...],
//	 "requests": [{"<resource>": <millicores for cpu, else units>}...],
//	 "disruption": [{"allowed": N, "desired": N}...],
//	 "rollout": [{"maxSurge": N, "maxUnavailable": N}...],
//	 "eviction": [[[<index of a budget the eviction API finds for the pod>...] per pod]...],
//	 "removed": [{"group": G, "version": V, "kind": K, "removed": "1.25", "replacement": "policy/v1"}...],
//	 "podSecurity": [{"allowed": bool, "reasons": ["<forbidden reason>"...]}...],
//	 "admission": [{"refused": "" | "<plugin>: <why>", "requests": {...}, "nodeSelector": {...},
//	                "tolerations": [Toleration...]}...]}
//
// "filter": per node, whether the default Filter plugins admit the Pod on an empty cluster holding "pods" (the
// first failing plugin and its reasons), the Pod first handed through the ExtendedResourceToleration admission
// plugin when "admit" (EKS, GKE and AKS run it); then "replicas" copies of the Pod placed one by one as the scheduler
// places them (each copy bound before the next is filtered, on the feasible node with fewest copies), "placed"
// how many found a node. "requests": k8s.io/component-helpers/resource.PodRequests (init containers, sidecars,
// overhead). "disruption": pkg/controller/disruption's desiredHealthy and disruptionsAllowed. "rollout":
// pkg/controller/deployment/util.ResolveFenceposts. "eviction": the budgets the eviction subresource finds for each
// Pod (more than one and it refuses every eviction), each budget read as the API server stores it: a policy/v1beta1
// object converted through the API's own scheme (an empty v1beta1 selector selects nothing). "removed": every kind of
// k8s.io/api (client-go's scheme registers them all) whose type says the release that removes its API version
// (APILifecycleRemoved, generated from the "+k8s:prerelease-lifecycle-gen:removed" tags), with the version its
// APILifecycleReplacement names: scripts/generate_removed_apis writes the pack's table from it. "podSecurity":
// k8s.io/pod-security-admission/policy's own evaluator at the level and the latest version, on the Pod's metadata
// and spec (the Pod Security Admission a namespace's enforce label turns on). "admission": the Pod (defaulted as the
// API server defaults it) through the LimitRanger and RuntimeClass admission plugins of k8s.io/kubernetes, in the API
// server's order (AllOrderedPlugins: LimitRanger, then RuntimeClass; every mutation before every validation), over the
// namespace's LimitRanges and the cluster's RuntimeClasses (each defaulted as the API server stores it), the Pod's own
// validation between the mutating and the validating plugins: the first refusal, else the admitted Pod's requests (as
// "requests" counts them), nodeSelector and tolerations.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	policyv1beta1 "k8s.io/api/policy/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apiserver/pkg/admission"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clientscheme "k8s.io/client-go/kubernetes/scheme"
	resourcehelper "k8s.io/component-helpers/resource"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	podutil "k8s.io/kubernetes/pkg/api/pod"
	core "k8s.io/kubernetes/pkg/apis/core"
	_ "k8s.io/kubernetes/pkg/apis/core/install" // the core API's conversions, as the API server registers them
	corev1defaults "k8s.io/kubernetes/pkg/apis/core/v1"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"
	"k8s.io/kubernetes/pkg/apis/policy"
	_ "k8s.io/kubernetes/pkg/apis/policy/install" // the policy API's conversions, as the API server registers them
	"k8s.io/kubernetes/pkg/controller/deployment/util"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	plfeature "k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/interpodaffinity"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodeaffinity"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/noderesources"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodeunschedulable"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/podtopologyspread"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/tainttoleration"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	schedulermetrics "k8s.io/kubernetes/pkg/scheduler/metrics"
	"k8s.io/kubernetes/plugin/pkg/admission/extendedresourcetoleration"
	"k8s.io/kubernetes/plugin/pkg/admission/limitranger"
	"k8s.io/kubernetes/plugin/pkg/admission/runtimeclass"
	psapi "k8s.io/pod-security-admission/api"
	pspolicy "k8s.io/pod-security-admission/policy"
)

type filterCase struct {
	Nodes    []*v1.Node `json:"nodes"`
	Pods     []*v1.Pod  `json:"pods"`
	Pod      *v1.Pod    `json:"pod"`
	Replicas int        `json:"replicas"`
	Admit    bool       `json:"admit"`
}

type budgetCase struct {
	MinAvailable   *intstr.IntOrString `json:"minAvailable"`
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable"`
	Expected       int                 `json:"expected"`
	Healthy        int                 `json:"healthy"`
}

type rolloutCase struct {
	MaxSurge       *intstr.IntOrString `json:"maxSurge"`
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable"`
	Replicas       int32               `json:"replicas"`
}

type evictionCase struct {
	Budgets []json.RawMessage `json:"budgets"`
	Pods    []*v1.Pod         `json:"pods"`
}

type request struct {
	Filter     []filterCase    `json:"filter"`
	Requests   []*v1.Pod       `json:"requests"`
	Disruption []budgetCase    `json:"disruption"`
	Rollout    []rolloutCase   `json:"rollout"`
	Eviction   []evictionCase  `json:"eviction"`
	Removed    bool            `json:"removed"`
	Security   []securityCase  `json:"podSecurity"`
	Admission  []admissionCase `json:"admission"`
	Devices    []devicesCase   `json:"devices"`
}

type admissionCase struct {
	LimitRanges    []*v1.LimitRange       `json:"limitRanges"`
	RuntimeClasses []*nodev1.RuntimeClass `json:"runtimeClasses"`
	Pod            *v1.Pod                `json:"pod"`
}

type securityCase struct {
	Level string  `json:"level"`
	Pod   *v1.Pod `json:"pod"`
}

type filterAnswer struct {
	Nodes  map[string]string `json:"nodes"`
	Placed int               `json:"placed"`
	On     []string          `json:"on"`
}

type answer struct {
	Filter     []filterAnswer     `json:"filter"`
	Requests   []map[string]int64 `json:"requests"`
	Disruption []map[string]any   `json:"disruption"`
	Rollout    []map[string]any   `json:"rollout"`
	Eviction   [][][]int          `json:"eviction"`
	Removed    []removedAPI       `json:"removed"`
	Security   []map[string]any   `json:"podSecurity"`
	Admission  []map[string]any   `json:"admission"`
	Devices    []map[string]any   `json:"devices"`
}

type removedAPI struct {
	Group       string `json:"group"`
	Version     string `json:"version"`
	Kind        string `json:"kind"`
	Removed     string `json:"removed"`
	Replacement string `json:"replacement"`
}

// removedAPIs: each kind whose API version a Kubernetes release removes, as the type itself says.
func removedAPIs() []removedAPI {
	type lifecycle interface{ APILifecycleRemoved() (int, int) }
	type replaced interface {
		APILifecycleReplacement() schema.GroupVersionKind
	}
	found := []removedAPI{}
	for gvk, kind := range clientscheme.Scheme.AllKnownTypes() {
		object := reflect.New(kind).Interface()
		removal, ok := object.(lifecycle)
		if !ok || strings.HasSuffix(gvk.Kind, "List") || strings.HasSuffix(gvk.Kind, "Options") {
			continue
		}
		major, minor := removal.APILifecycleRemoved()
		if major == 0 {
			continue
		}
		entry := removedAPI{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind, Removed: fmt.Sprintf("%d.%d", major, minor)}
		if next, ok := object.(replaced); ok && !next.APILifecycleReplacement().Empty() {
			entry.Replacement = next.APILifecycleReplacement().GroupVersion().String()
		}
		found = append(found, entry)
	}
	sort.Slice(found, func(i, j int) bool {
		a, b := found[i], found[j]
		return a.Group+"/"+a.Version+"/"+a.Kind < b.Group+"/"+b.Version+"/"+b.Kind
	})
	return found
}

// The default profile's Filter plugins that judge where a Pod may run on nodes the pack models (no volumes, no
// ports, no DRA), in the default profile's order.
var order = []string{nodeunschedulable.Name, nodeaffinity.Name, noderesources.Name, tainttoleration.Name,
	podtopologyspread.Name, interpodaffinity.Name}

func plugins(ctx context.Context, snapshot *cache.Snapshot) (map[string]fwk.Plugin, error) {
	fts := plfeature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)
	fts.EnableDRAExtendedResource = false // extended resources (nvidia.com/gpu) come from device plugins here
	namespace := &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	factory := informers.NewSharedInformerFactory(fake.NewClientset(namespace), 0)
	handle, err := frameworkruntime.NewFramework(ctx, nil, nil,
		frameworkruntime.WithSnapshotSharedLister(snapshot), frameworkruntime.WithInformerFactory(factory))
	if err != nil {
		return nil, err
	}
	args := map[string]runtime.Object{
		nodeaffinity.Name: &config.NodeAffinityArgs{},
		noderesources.Name: &config.NodeResourcesFitArgs{ScoringStrategy: &config.ScoringStrategy{
			Type: config.LeastAllocated, Resources: []config.ResourceSpec{{Name: "cpu", Weight: 1},
				{Name: "memory", Weight: 1}}}},
		podtopologyspread.Name: &config.PodTopologySpreadArgs{DefaultingType: config.ListDefaulting},
		interpodaffinity.Name:  &config.InterPodAffinityArgs{HardPodAffinityWeight: 1},
	}
	factories := map[string]frameworkruntime.PluginFactory{
		nodeunschedulable.Name: frameworkruntime.FactoryAdapter(fts, nodeunschedulable.New),
		nodeaffinity.Name:      frameworkruntime.FactoryAdapter(fts, nodeaffinity.New),
		noderesources.Name:     frameworkruntime.FactoryAdapter(fts, noderesources.NewFit),
		tainttoleration.Name:   frameworkruntime.FactoryAdapter(fts, tainttoleration.New),
		podtopologyspread.Name: frameworkruntime.FactoryAdapter(fts, podtopologyspread.New),
		interpodaffinity.Name:  frameworkruntime.FactoryAdapter(fts, interpodaffinity.New),
	}
	found := map[string]fwk.Plugin{}
	for _, name := range order {
		plugin, err := factories[name](ctx, args[name], handle)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		found[name] = plugin
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	return found, nil
}

// judge runs PreFilter then Filter of each plugin for the Pod on every node of the snapshot: per node, "" when
// every plugin admits it, else the first failing plugin and its reasons.
func judge(ctx context.Context, snapshot *cache.Snapshot, pod *v1.Pod) (map[string]string, error) {
	found, err := plugins(ctx, snapshot)
	if err != nil {
		return nil, err
	}
	infos, err := snapshot.NodeInfos().List()
	if err != nil {
		return nil, err
	}
	state := framework.NewCycleState()
	verdicts := map[string]string{}
	skipped := map[string]bool{}
	for _, name := range order {
		pre, ok := found[name].(fwk.PreFilterPlugin)
		if !ok {
			continue
		}
		result, status := pre.PreFilter(ctx, state, pod, infos)
		if status.IsSkip() {
			skipped[name] = true
			continue
		}
		if !status.IsSuccess() {
			for _, info := range infos {
				if verdicts[info.Node().Name] == "" {
					verdicts[info.Node().Name] = name + ": " + strings.Join(status.Reasons(), "; ")
				}
			}
			continue
		}
		if result != nil && !result.AllNodes() {
			for _, info := range infos {
				if !result.NodeNames.Has(info.Node().Name) && verdicts[info.Node().Name] == "" {
					verdicts[info.Node().Name] = name + ": " + "not among its PreFilter result"
				}
			}
		}
	}
	for _, info := range infos {
		node := info.Node().Name
		if verdicts[node] != "" {
			continue
		}
		for _, name := range order {
			if skipped[name] {
				continue
			}
			status := found[name].(fwk.FilterPlugin).Filter(ctx, state, pod, info)
			if !status.IsSuccess() {
				verdicts[node] = name + ": " + strings.Join(status.Reasons(), "; ")
				break
			}
		}
		if _, ok := verdicts[node]; !ok {
			verdicts[node] = ""
		}
	}
	return verdicts, nil
}

// admit hands the Pod through the API server's ExtendedResourceToleration admission plugin, on the internal type
// it reads (converted through the API's own scheme), and back.
func admit(ctx context.Context, pod *v1.Pod) error {
	registered := admission.NewPlugins()
	extendedresourcetoleration.Register(registered)
	plugin, err := registered.InitPlugin(extendedresourcetoleration.PluginName, nil, admission.PluginInitializers{})
	if err != nil {
		return err
	}
	internal := &core.Pod{}
	if err := legacyscheme.Scheme.Convert(pod, internal, nil); err != nil {
		return err
	}
	attributes := admission.NewAttributesRecord(internal, nil, core.Kind("Pod").WithVersion("v1"), pod.Namespace,
		pod.Name, core.Resource("pods").WithVersion("v1"), "", admission.Create, &metav1.CreateOptions{}, false, nil)
	if err := plugin.(admission.MutationInterface).Admit(ctx, attributes, nil); err != nil {
		return err
	}
	return legacyscheme.Scheme.Convert(internal, pod, nil)
}

// admitted hands the Pod through the LimitRanger and RuntimeClass admission plugins as the API server runs them: each
// one's Admit in AllOrderedPlugins' order, then each one's Validate; the plugins find the LimitRanges and RuntimeClasses
// through a client that holds them (their live lookup).
func admitted(ctx context.Context, c admissionCase) (map[string]any, error) {
	objects := []runtime.Object{}
	for _, item := range c.LimitRanges {
		legacyscheme.Scheme.Default(item)
		objects = append(objects, item)
	}
	for _, item := range c.RuntimeClasses {
		legacyscheme.Scheme.Default(item)
		objects = append(objects, item)
	}
	client := fake.NewClientset(objects...)
	factory := informers.NewSharedInformerFactory(client, 0)
	ranger, err := limitranger.NewLimitRanger(&limitranger.DefaultLimitRangerActions{})
	if err != nil {
		return nil, err
	}
	ranger.SetExternalKubeClientSet(client)
	ranger.SetExternalKubeInformerFactory(factory)
	classes := runtimeclass.NewRuntimeClass()
	classes.SetExternalKubeClientSet(client)
	classes.SetExternalKubeInformerFactory(factory)
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	pod := c.Pod
	defaults(pod)
	internal := &core.Pod{}
	if err := legacyscheme.Scheme.Convert(pod, internal, nil); err != nil {
		return nil, err
	}
	attributes := admission.NewAttributesRecord(internal, nil, core.Kind("Pod").WithVersion("v1"), pod.Namespace,
		pod.Name, core.Resource("pods").WithVersion("v1"), "", admission.Create, &metav1.CreateOptions{}, false, nil)
	steps := []struct {
		name   string
		plugin admission.Interface
	}{{"LimitRanger", ranger}, {"RuntimeClass", classes}}
	for _, step := range steps {
		if err := step.plugin.(admission.MutationInterface).Admit(ctx, attributes, nil); err != nil {
			return map[string]any{"refused": step.name + ": " + err.Error()}, nil
		}
	}
	// the Pod's own validation, between the mutating and the validating plugins (a request above its limit)
	options := podutil.GetValidationOptionsFromPodSpecAndMeta(&internal.Spec, nil, &internal.ObjectMeta, nil)
	if errs := corevalidation.ValidatePodCreate(internal, options); len(errs) > 0 {
		return map[string]any{"refused": "validation: " + errs.ToAggregate().Error()}, nil
	}
	for _, step := range steps {
		if err := step.plugin.(admission.ValidationInterface).Validate(ctx, attributes, nil); err != nil {
			return map[string]any{"refused": step.name + ": " + err.Error()}, nil
		}
	}
	out := &v1.Pod{}
	if err := legacyscheme.Scheme.Convert(internal, out, nil); err != nil {
		return nil, err
	}
	requests := map[string]int64{}
	for name, quantity := range resourcehelper.PodRequests(out, resourcehelper.PodResourcesOptions{}) {
		if name == v1.ResourceCPU {
			requests[string(name)] = quantity.MilliValue()
		} else {
			requests[string(name)] = quantity.Value()
		}
	}
	selector := out.Spec.NodeSelector
	if selector == nil {
		selector = map[string]string{}
	}
	tolerations := out.Spec.Tolerations
	if tolerations == nil {
		tolerations = []v1.Toleration{}
	}
	return map[string]any{"refused": "", "requests": requests, "nodeSelector": selector, "tolerations": tolerations}, nil
}

func filter(ctx context.Context, c filterCase) (filterAnswer, error) {
	for _, pod := range c.Pods {
		defaults(pod)
	}
	defaults(c.Pod)
	if c.Admit {
		if err := admit(ctx, c.Pod); err != nil {
			return filterAnswer{}, err
		}
	}
	verdicts, err := judge(ctx, cache.NewSnapshot(c.Pods, c.Nodes), c.Pod)
	if err != nil {
		return filterAnswer{}, err
	}
	result := filterAnswer{Nodes: verdicts, On: []string{}}
	pods := append([]*v1.Pod{}, c.Pods...)
	copies := map[string]int{}
	for i := 0; i < c.Replicas; i++ {
		pod := c.Pod.DeepCopy()
		pod.Name = fmt.Sprintf("%s-%d", c.Pod.Name, i)
		pod.UID = types.UID("uid-" + pod.Name) // each copy its own Pod
		placing, err := judge(ctx, cache.NewSnapshot(pods, c.Nodes), pod)
		if err != nil {
			return filterAnswer{}, err
		}
		var feasible []string
		for node, verdict := range placing {
			if verdict == "" {
				feasible = append(feasible, node)
			}
		}
		if len(feasible) == 0 {
			break
		}
		sort.Slice(feasible, func(a, b int) bool {
			if copies[feasible[a]] != copies[feasible[b]] {
				return copies[feasible[a]] < copies[feasible[b]]
			}
			return feasible[a] < feasible[b]
		})
		pod.Spec.NodeName = feasible[0]
		copies[feasible[0]]++
		pods = append(pods, pod)
		result.Placed++
		result.On = append(result.On, feasible[0])
	}
	return result, nil
}

// defaults gives a Pod what the API server would before the scheduler sees it: its defaulting (a limit without a
// request becomes the request, ...), its namespace, a UID.
func defaults(pod *v1.Pod) {
	corev1defaults.SetObjectDefaults_Pod(pod)
	if pod.Namespace == "" {
		pod.Namespace = "default"
	}
	if pod.UID == "" {
		pod.UID = types.UID("uid-" + pod.Name)
	}
}

// budget is pkg/controller/disruption's arithmetic (getExpectedPodCount's desiredHealthy, then
// updatePdbStatus's disruptionsAllowed), over the exported helper it calls.
func budget(c budgetCase) (map[string]any, error) {
	desired := 0
	if c.MaxUnavailable != nil {
		unavailable, err := intstr.GetScaledValueFromIntOrPercent(c.MaxUnavailable, c.Expected, true)
		if err != nil {
			return nil, err
		}
		desired = c.Expected - unavailable
		if desired < 0 {
			desired = 0
		}
	} else if c.MinAvailable != nil {
		if c.MinAvailable.Type == intstr.Int {
			desired = c.MinAvailable.IntValue()
		} else {
			available, err := intstr.GetScaledValueFromIntOrPercent(c.MinAvailable, c.Expected, true)
			if err != nil {
				return nil, err
			}
			desired = available
		}
	}
	allowed := c.Healthy - desired
	if c.Expected <= 0 || allowed < 0 {
		allowed = 0
	}
	return map[string]any{"allowed": allowed, "desired": desired}, nil
}

// stored reads a budget as the API server stores it and serves it as policy/v1: a policy/v1beta1 object is converted
// to the internal version and back out as v1 by the API's own scheme.
func stored(raw json.RawMessage) (*policyv1.PodDisruptionBudget, error) {
	var meta metav1.TypeMeta
	if err := json.Unmarshal(raw, &meta); err != nil {
		return nil, err
	}
	out := &policyv1.PodDisruptionBudget{}
	if meta.APIVersion != "policy/v1beta1" {
		return out, json.Unmarshal(raw, out)
	}
	beta := &policyv1beta1.PodDisruptionBudget{}
	if err := json.Unmarshal(raw, beta); err != nil {
		return nil, err
	}
	internal := &policy.PodDisruptionBudget{}
	if err := legacyscheme.Scheme.Convert(beta, internal, nil); err != nil {
		return nil, err
	}
	return out, legacyscheme.Scheme.Convert(internal, out, nil)
}

// evictionBudgets is pkg/registry/core/pod/storage/eviction.go's getPodDisruptionBudgets (a method of EvictionREST
// over its client, so its loop is written out here): the budgets of the Pod's namespace whose selector matches its
// labels; an invalid selector matches nothing.
func evictionBudgets(budgets []*policyv1.PodDisruptionBudget, pod *v1.Pod) []int {
	found := []int{}
	for index, pdb := range budgets {
		if pdb.Namespace != pod.Namespace {
			continue
		}
		selector, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil {
			continue
		}
		if !selector.Matches(labels.Set(pod.Labels)) {
			continue
		}
		found = append(found, index)
	}
	return found
}

func eviction(c evictionCase) ([][]int, error) {
	budgets := []*policyv1.PodDisruptionBudget{}
	for _, raw := range c.Budgets {
		pdb, err := stored(raw)
		if err != nil {
			return nil, err
		}
		if pdb.Namespace == "" {
			pdb.Namespace = "default"
		}
		budgets = append(budgets, pdb)
	}
	found := [][]int{}
	for _, pod := range c.Pods {
		defaults(pod)
		found = append(found, evictionBudgets(budgets, pod))
	}
	return found, nil
}

func main() {
	var in request
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fmt.Fprintln(os.Stderr, "oracle: reading the request:", err)
		os.Exit(2)
	}
	_ = features.PodLevelResources // the kubernetes features register their gates with utilfeature's
	schedulermetrics.Register()    // the plugins record metrics as kube-scheduler does
	ctx := context.Background()
	out := answer{Filter: []filterAnswer{}, Requests: []map[string]int64{}, Disruption: []map[string]any{},
		Rollout: []map[string]any{}, Eviction: [][][]int{}, Removed: []removedAPI{}, Security: []map[string]any{},
		Admission: []map[string]any{}, Devices: []map[string]any{}}
	if in.Removed {
		out.Removed = removedAPIs()
	}
	for _, c := range in.Filter {
		found, err := filter(ctx, c)
		if err != nil {
			fmt.Fprintln(os.Stderr, "oracle: filter:", err)
			os.Exit(1)
		}
		out.Filter = append(out.Filter, found)
	}
	for _, pod := range in.Requests {
		defaults(pod)
		requests := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
		found := map[string]int64{}
		for name, quantity := range requests {
			if name == v1.ResourceCPU {
				found[string(name)] = quantity.MilliValue() // millicores, as the pack counts them
			} else {
				found[string(name)] = quantity.Value()
			}
		}
		out.Requests = append(out.Requests, found)
	}
	for _, c := range in.Disruption {
		found, err := budget(c)
		if err != nil {
			fmt.Fprintln(os.Stderr, "oracle: disruption:", err)
			os.Exit(1)
		}
		out.Disruption = append(out.Disruption, found)
	}
	for _, c := range in.Rollout {
		surge, unavailable, err := util.ResolveFenceposts(c.MaxSurge, c.MaxUnavailable, c.Replicas)
		if err != nil {
			out.Rollout = append(out.Rollout, map[string]any{"error": err.Error()})
			continue
		}
		out.Rollout = append(out.Rollout, map[string]any{"maxSurge": surge, "maxUnavailable": unavailable})
	}
	for _, c := range in.Eviction {
		found, err := eviction(c)
		if err != nil {
			fmt.Fprintln(os.Stderr, "oracle: eviction:", err)
			os.Exit(1)
		}
		out.Eviction = append(out.Eviction, found)
	}
	if len(in.Security) > 0 {
		evaluator, err := pspolicy.NewEvaluator(pspolicy.DefaultChecks(), nil)
		if err != nil {
			fmt.Fprintln(os.Stderr, "oracle: pod security:", err)
			os.Exit(1)
		}
		for _, c := range in.Security {
			level, err := psapi.ParseLevel(c.Level)
			if err != nil {
				fmt.Fprintln(os.Stderr, "oracle: pod security:", err)
				os.Exit(1)
			}
			result := pspolicy.AggregateCheckResults(evaluator.EvaluatePod(
				psapi.LevelVersion{Level: level, Version: psapi.LatestVersion()}, &c.Pod.ObjectMeta, &c.Pod.Spec))
			reasons := result.ForbiddenReasons
			if reasons == nil {
				reasons = []string{}
			}
			out.Security = append(out.Security, map[string]any{"allowed": result.Allowed, "reasons": reasons})
		}
	}
	for _, c := range in.Admission {
		found, err := admitted(ctx, c)
		if err != nil {
			fmt.Fprintln(os.Stderr, "oracle: admission:", err)
			os.Exit(1)
		}
		out.Admission = append(out.Admission, found)
	}
	for _, c := range in.Devices {
		out.Devices = append(out.Devices, allocate(ctx, c))
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "oracle: writing the answer:", err)
		os.Exit(1)
	}
}
