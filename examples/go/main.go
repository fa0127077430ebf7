// The Python example (examples/kubernetes/__main__.py) in Go: an existing Kubernetes cluster with two x86_64
// compute pools and workloads placed on them; the stack 'broken' adds the three mistakes it demonstrates.
package main

import (
	"fmt"

	"example.com/pulumi-compute/sdk/go/compute"
	"github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes"
	appsv1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/apps/v1"
	batchv1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/batch/v1"
	corev1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/core/v1"
	helmv4 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/helm/v4"
	metav1 "github.com/pulumi/pulumi-kubernetes/sdk/v4/go/kubernetes/meta/v1"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

const gib = 1 << 30

func placement(pool, role string) pulumi.StringMap {
	return pulumi.StringMap{"compute.alien.dev/cluster": pulumi.String("compute"),
		"compute.alien.dev/pool": pulumi.String(pool), "compute.alien.dev/workload": pulumi.String(role)}
}

// pod is one container requesting cpu and memory, pinned to amd64 (what x86_64 is called on Kubernetes nodes)
// unless arch says otherwise.
func pod(name, cpu, memory, arch, restart string) *corev1.PodTemplateSpecArgs {
	spec := &corev1.PodSpecArgs{
		Containers: corev1.ContainerArray{corev1.ContainerArgs{
			Name: pulumi.String(name), Image: pulumi.String(fmt.Sprintf("registry.example.com/%s:1.0", name)),
			Resources: &corev1.ResourceRequirementsArgs{
				Requests: pulumi.StringMap{"cpu": pulumi.String(cpu), "memory": pulumi.String(memory)},
				Limits:   pulumi.StringMap{"memory": pulumi.String(memory)}},
		}},
		NodeSelector: pulumi.StringMap{"kubernetes.io/arch": pulumi.String(arch)},
	}
	if restart != "" {
		spec.RestartPolicy = pulumi.String(restart)
	}
	return &corev1.PodTemplateSpecArgs{
		Metadata: &metav1.ObjectMetaArgs{Labels: pulumi.StringMap{"app": pulumi.String(name)}}, Spec: spec}
}

func meta(name string, labels pulumi.StringMap) *metav1.ObjectMetaArgs {
	return &metav1.ObjectMetaArgs{Name: pulumi.String(name), Labels: labels}
}

func selector(name string) *metav1.LabelSelectorArgs {
	return &metav1.LabelSelectorArgs{MatchLabels: pulumi.StringMap{"app": pulumi.String(name)}}
}

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cluster, err := compute.NewComputeCluster(ctx, "compute", &compute.ComputeClusterArgs{
			ClusterId: pulumi.String("compute"), // the seed's id: the Pulumi SDKs reserve `id` on resources
			CapacityGroups: compute.CapacityGroupArray{
				compute.CapacityGroupArgs{
					GroupId: pulumi.String("general"), MinSize: pulumi.Int(1), MaxSize: pulumi.Int(3),
					Profile: &compute.MachineProfileArgs{Cpu: pulumi.String("4"), MemoryBytes: pulumi.Int(16 * gib),
						EphemeralStorageBytes: pulumi.Int(100 * gib), Architecture: pulumi.String("x86_64")},
					ScalePolicy: &compute.ScalePolicyArgs{Type: pulumi.String("autoscale"),
						Min: &compute.ComputeChoiceRangeArgs{Min: pulumi.Int(1), Max: pulumi.Int(2), Default: pulumi.Int(1)},
						Max: &compute.ComputeChoiceRangeArgs{Min: pulumi.Int(3), Max: pulumi.Int(5), Default: pulumi.Int(3)}},
				},
				compute.CapacityGroupArgs{
					GroupId: pulumi.String("stateful"), MinSize: pulumi.Int(2), MaxSize: pulumi.Int(2),
					Profile: &compute.MachineProfileArgs{Cpu: pulumi.String("8"), MemoryBytes: pulumi.Int(32 * gib),
						EphemeralStorageBytes: pulumi.Int(200 * gib), Architecture: pulumi.String("x86_64")},
				},
			},
			DynamicContainerPool: pulumi.String("general"),
		})
		if err != nil {
			return err
		}
		render, err := kubernetes.NewProvider(ctx, "render",
			&kubernetes.ProviderArgs{RenderYamlToDirectory: pulumi.String("rendered")})
		if err != nil {
			return err
		}
		opts := pulumi.Provider(render)
		deployment := func(name, pool, cpu, memory, arch string, replicas int) error {
			_, err := appsv1.NewDeployment(ctx, name, &appsv1.DeploymentArgs{Metadata: meta(name, placement(pool, "container")),
				Spec: &appsv1.DeploymentSpecArgs{Replicas: pulumi.Int(replicas), Selector: selector(name),
					Template: pod(name, cpu, memory, arch, "")}}, opts)
			return err
		}
		statefulSet := func(name, pool, cpu, memory string, replicas int) error {
			_, err := appsv1.NewStatefulSet(ctx, name, &appsv1.StatefulSetArgs{Metadata: meta(name, placement(pool, "container")),
				Spec: &appsv1.StatefulSetSpecArgs{ServiceName: pulumi.String(name), Replicas: pulumi.Int(replicas),
					Selector: selector(name), Template: pod(name, cpu, memory, "amd64", "")}}, opts)
			return err
		}
		if err := deployment("api", "general", "500m", "1Gi", "amd64", 2); err != nil {
			return err
		}
		if err := statefulSet("db", "stateful", "2", "8Gi", 1); err != nil {
			return err
		}
		if _, err := appsv1.NewDaemonSet(ctx, "log-agent", &appsv1.DaemonSetArgs{
			Metadata: meta("log-agent", placement("general", "daemon")),
			Spec: &appsv1.DaemonSetSpecArgs{Selector: selector("log-agent"),
				Template: pod("log-agent", "100m", "128Mi", "amd64", "")}}, opts); err != nil {
			return err
		}
		if _, err := batchv1.NewCronJob(ctx, "report", &batchv1.CronJobArgs{
			Metadata: meta("report", pulumi.StringMap{"compute.alien.dev/workload": pulumi.String("worker")}),
			Spec: &batchv1.CronJobSpecArgs{Schedule: pulumi.String("0 3 * * *"), JobTemplate: &batchv1.JobTemplateSpecArgs{
				Spec: &batchv1.JobSpecArgs{Template: pod("report", "250m", "256Mi", "amd64", "OnFailure")}}}}, opts); err != nil {
			return err
		}
		// A Helm chart (examples/charts/status-page) placed by its values: its Deployment carries the same labels and pin.
		if _, err := helmv4.NewChart(ctx, "status", &helmv4.ChartArgs{
			Chart: pulumi.String("../charts/status-page"), Namespace: pulumi.String("default"),
			Values: pulumi.Map{"labels": placement("general", "container"),
				"nodeSelector": pulumi.StringMap{"kubernetes.io/arch": pulumi.String("amd64")}}}, opts); err != nil {
			return err
		}
		if config.GetBool(ctx, "demoMistakes") {
			// a pool that does not exist, and Pods pinned with the classic x86_64 spelling no node carries ...
			if err := deployment("legacy", "gpu", "100m", "128Mi", "x86_64", 1); err != nil {
				return err
			}
			// ... a Pod larger than any node of its pool (6 cores on 4-core machines), which would sit Pending ...
			if err := deployment("encoder", "general", "6", "4Gi", "amd64", 1); err != nil {
				return err
			}
			// ... and a pool that, at its maxSize of 2 machines of 32 GiB, cannot hold 5 x 12 GiB beside the db.
			if err := statefulSet("cache", "stateful", "500m", "12Gi", 5); err != nil {
				return err
			}
		}
		ctx.Export("cluster_id", cluster.ClusterId)
		return nil
	})
}
