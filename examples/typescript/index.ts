// The Python example (examples/kubernetes/__main__.py) in TypeScript: an existing Kubernetes cluster with two
// x86_64 compute pools and workloads placed on them; the stack 'broken' adds the three mistakes it demonstrates.
import * as pulumi from "@pulumi/pulumi";
import * as k8s from "@pulumi/kubernetes";
import * as compute from "@pulumi/compute";

const GIB = 1024 ** 3;
const AMD64 = { "kubernetes.io/arch": "amd64" }; // what x86_64 is called on Kubernetes nodes

// On a cloud (the stack 'aws'), 'general' is given by its machine alone, as cloud users write it: the machine's
// catalog facts are its node and its architecture (m7i.xlarge: 4 vCPUs, 16 GiB, x86_64).
const machine = new pulumi.Config().get("generalMachine");
const general = machine ? { instanceType: machine } : {
    profile: { cpu: "4", memoryBytes: 16 * GIB, ephemeralStorageBytes: 100 * GIB, architecture: "x86_64" } };

const cluster = new compute.ComputeCluster("compute", {
    clusterId: "compute", // the seed's id: the Pulumi SDKs reserve `id` on resources
    capacityGroups: [
        {
            groupId: "general", minSize: 1, maxSize: 3, ...general,
            scalePolicy: { type: "autoscale", min: { min: 1, max: 2, default: 1 }, max: { min: 3, max: 5, default: 3 } },
        },
        {
            groupId: "stateful", minSize: 2, maxSize: 2,
            profile: { cpu: "8", memoryBytes: 32 * GIB, ephemeralStorageBytes: 200 * GIB, architecture: "x86_64" },
        },
    ],
    dynamicContainerPool: "general",
});

const render = new k8s.Provider("render", { renderYamlToDirectory: "rendered" });
const opts = { provider: render };

function placement(pool: string, role = "container") {
    return { "compute.alien.dev/cluster": "compute", "compute.alien.dev/pool": pool, "compute.alien.dev/workload": role };
}

function pod(name: string, cpu: string, memory: string, spec: Record<string, unknown> = {}) {
    const container = { name, image: `registry.example.com/${name}:1.0`,
                        resources: { requests: { cpu, memory }, limits: { memory } } };
    return { metadata: { labels: { app: name } }, spec: { containers: [container], nodeSelector: AMD64, ...spec } };
}

new k8s.apps.v1.Deployment("api", { metadata: { name: "api", labels: placement("general") }, spec: {
    replicas: 2, selector: { matchLabels: { app: "api" } }, template: pod("api", "500m", "1Gi") } }, opts);

new k8s.apps.v1.StatefulSet("db", { metadata: { name: "db", labels: placement("stateful") }, spec: {
    serviceName: "db", selector: { matchLabels: { app: "db" } }, template: pod("db", "2", "8Gi") } }, opts);

new k8s.apps.v1.DaemonSet("log-agent", { metadata: { name: "log-agent", labels: placement("general", "daemon") }, spec: {
    selector: { matchLabels: { app: "log-agent" } }, template: pod("log-agent", "100m", "128Mi") } }, opts);

new k8s.batch.v1.CronJob("report", { metadata: { name: "report", labels: { "compute.alien.dev/workload": "worker" } },
    spec: { schedule: "0 3 * * *", jobTemplate: { spec: {
        template: pod("report", "250m", "256Mi", { restartPolicy: "OnFailure" }) } } } }, opts);

// A Helm chart (examples/charts/status-page) placed by its values: its Deployment carries the same labels and pin.
new k8s.helm.v4.Chart("status", { chart: "../charts/status-page", namespace: "default",
    values: { labels: placement("general"), nodeSelector: AMD64 } }, opts);

if (new pulumi.Config().getBoolean("demoMistakes")) {
    // a pool that does not exist, and Pods pinned with the classic x86_64 spelling no Kubernetes node carries ...
    new k8s.apps.v1.Deployment("legacy", { metadata: { name: "legacy", labels: placement("gpu") }, spec: {
        selector: { matchLabels: { app: "legacy" } },
        template: pod("legacy", "100m", "128Mi", { nodeSelector: { "kubernetes.io/arch": "x86_64" } }) } }, opts);
    // ... a Pod larger than any node of its pool (6 cores on 4-core machines), which would sit Pending ...
    new k8s.apps.v1.Deployment("encoder", { metadata: { name: "encoder", labels: placement("general") }, spec: {
        selector: { matchLabels: { app: "encoder" } }, template: pod("encoder", "6", "4Gi") } }, opts);
    // ... and a pool that, at its maxSize of 2 machines of 32 GiB, cannot hold 5 x 12 GiB beside the db.
    new k8s.apps.v1.StatefulSet("cache", { metadata: { name: "cache", labels: placement("stateful") }, spec: {
        serviceName: "cache", replicas: 5, selector: { matchLabels: { app: "cache" } },
        template: pod("cache", "500m", "12Gi") } }, opts);
}

export const cluster_id = cluster.clusterId;
