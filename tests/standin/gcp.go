package main

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
)

// The Google Cloud provider's configuration: what a program's stack config (gcp:project, gcp:region, ...) gives its
// default provider (hashicorp/terraform-provider-google google/provider/provider.go).
func gcpConfig() map[string]*schema.Schema {
	return map[string]*schema.Schema{
		"project": str("o"), "region": str("o"), "zone": str("o"), "credentials": str("os"),
		"access_token": str("os"), "impersonate_service_account": str("o"), "billing_project": str("o"),
		"user_project_override": boolean("o"), "default_labels": strMap("o"),
		"add_terraform_attribution_label": boolean("o"),
	}
}

// nodeConfig is a node pool's (and a cluster's default pool's) node_config block (google/services/container/
// node_config.go, schemaNodeConfig): the fields a change to which recreates the pool are ForceNew there (spot,
// preemptible, service_account, oauth_scopes, guest_accelerator, metadata, ...); machine_type, disk_size_gb,
// disk_type, image_type, labels, taints and tags are updated in place (GKE recreates the nodes a few at a time).
func nodeConfig(cluster bool) *schema.Schema {
	inPlace := "oc"
	clusterOnly := "oc"
	if cluster { // a cluster's node_config: labels and workload_metadata_config ForceNew besides the pool's
		// (resource_container_cluster.go, forceNewClusterNodeConfigFields)
		clusterOnly = "ocn"
	}
	replaces := "ocn"
	return block("oc", 1, map[string]*schema.Schema{
		"machine_type":      str(inPlace),
		"disk_size_gb":      integer(inPlace),
		"disk_type":         str(inPlace),
		"image_type":        str(inPlace),
		"labels":            strMap(clusterOnly),
		"resource_labels":   strMap("o"),
		"tags":              strList("o"),
		"local_ssd_count":   integer(replaces),
		"metadata":          strMap(replaces),
		"min_cpu_platform":  str(replaces),
		"oauth_scopes":      strSet(replaces),
		"preemptible":       withDefault(boolean("on"), false),
		"spot":              withDefault(boolean("on"), false),
		"service_account":   str(replaces),
		"boot_disk_kms_key": str("on"),
		"guest_accelerator": block(replaces, 0, map[string]*schema.Schema{
			"type": str("rn"), "count": integer("rn"),
			"gpu_driver_installation_config": block("on", 1, map[string]*schema.Schema{
				"gpu_driver_version": str("rn")}),
			"gpu_partition_size": str("on"),
		}),
		"taint": block("o", 0, map[string]*schema.Schema{
			"key": str("r"), "value": str("r"), "effect": str("r"),
		}),
		"effective_taints": block("c", 0, map[string]*schema.Schema{
			"key": str("c"), "value": str("c"), "effect": str("c"),
		}),
		"shielded_instance_config": block("ocn", 1, map[string]*schema.Schema{
			"enable_secure_boot":          withDefault(boolean("on"), false),
			"enable_integrity_monitoring": withDefault(boolean("on"), true),
		}),
		"workload_metadata_config": block(clusterOnly, 1, map[string]*schema.Schema{"mode": str("r")}),
	})
}

func nodePoolFields() map[string]*schema.Schema {
	return map[string]*schema.Schema{
		"autoscaling": block("o", 1, map[string]*schema.Schema{
			"min_node_count": integer("o"), "max_node_count": integer("o"),
			"total_min_node_count": integer("o"), "total_max_node_count": integer("o"),
			"location_policy": str("oc"),
		}),
		"management": block("oc", 1, map[string]*schema.Schema{
			"auto_repair": withDefault(boolean("o"), true), "auto_upgrade": withDefault(boolean("o"), true),
		}),
		"max_pods_per_node":  integer("ocn"),
		"initial_node_count": integer("ocn"),
		"node_count":         integer("oc"),
		"node_locations":     strSet("oc"),
		"node_config":        nodeConfig(false),
		"version":            str("oc"),
		"placement_policy": block("on", 1, map[string]*schema.Schema{
			"type": str("r"), "policy_name": str("on"), "tpu_topology": str("o"),
		}),
		"upgrade_settings": block("oc", 1, map[string]*schema.Schema{
			"max_surge": integer("oc"), "max_unavailable": integer("oc"),
			"strategy": withDefault(str("o"), "SURGE"),
		}),
		"network_config": block("oc", 1, map[string]*schema.Schema{
			"create_pod_range": boolean("on"), "enable_private_nodes": boolean("oc"),
			"pod_ipv4_cidr_block": str("ocn"), "pod_range": str("ocn"),
		}),
		"instance_group_urls": strList("c"),
	}
}

func gcpResources() map[string]resource {
	return map[string]resource{
		// google/services/container/resource_container_node_pool.go; pulumi-gcp auto-names `name`
		// (provider/resources.go: prov.SetAutonaming).
		"google_container_node_pool": {
			token: "gcp:container/nodePool:NodePool",
			schema: with(nodePoolFields(), map[string]*schema.Schema{
				"cluster":     str("rn"),
				"location":    str("ocn"),
				"project":     str("ocn"),
				"name":        conflicts(str("ocn"), "name_prefix"),
				"name_prefix": conflicts(str("ocn"), "name"),
			}),
			autoName: map[string]string{"name": "name"},
			id: func(d *schema.ResourceData) string {
				project, location, cluster := clusterParts(d.Get("cluster").(string))
				return fmt.Sprintf("projects/%s/locations/%s/clusters/%s/nodePools/%s", project, location, cluster,
					d.Get("name").(string))
			},
			created: func(d *schema.ResourceData) {
				project, location, _ := clusterParts(d.Get("cluster").(string))
				setUnset(d, "project", project)
				setUnset(d, "location", location)
				createdPool(d, "")
			},
		},
		// google/services/container/resource_container_cluster.go
		"google_container_cluster": {
			token: "gcp:container/cluster:Cluster",
			schema: map[string]*schema.Schema{
				"name":                     str("rn"),
				"location":                 str("ocn"),
				"project":                  str("ocn"),
				"description":              str("on"),
				"deletion_protection":      withDefault(boolean("o"), true),
				"initial_node_count":       integer("on"),
				"remove_default_node_pool": boolean("o"),
				"node_config":              nodeConfig(true),
				"node_locations":           strSet("oc"),
				// ForceNew whole: an inline pool is changed only by recreating the cluster
				"node_pool": block("ocn", 0, with(nodePoolFields(), map[string]*schema.Schema{
					"name": str("oc"),
				})),
				"min_master_version":        str("o"),
				"node_version":              str("oc"),
				"master_version":            str("c"),
				"networking_mode":           str("ocn"),
				"network":                   withDefault(str("on"), "default"),
				"subnetwork":                str("ocn"),
				"datapath_provider":         str("ocn"),
				"default_max_pods_per_node": integer("ocn"),
				"enable_autopilot":          boolean("on"),
				"resource_labels":           strMap("o"),
				"ip_allocation_policy": block("ocn", 1, map[string]*schema.Schema{
					"cluster_ipv4_cidr_block":       str("ocn"),
					"services_ipv4_cidr_block":      str("ocn"),
					"cluster_secondary_range_name":  str("ocn"),
					"services_secondary_range_name": str("ocn"),
					"stack_type":                    str("on"),
				}),
				"release_channel": block("oc", 1, map[string]*schema.Schema{"channel": str("r")}),
				"private_cluster_config": block("oc", 1, map[string]*schema.Schema{
					"enable_private_nodes": boolean("o"), "enable_private_endpoint": boolean("o"),
					"master_ipv4_cidr_block": str("ocn"), "private_endpoint": str("c"),
					"public_endpoint": str("c"),
				}),
				"workload_identity_config": block("o", 1, map[string]*schema.Schema{"workload_pool": str("o")}),
				"cluster_autoscaling": block("oc", 1, map[string]*schema.Schema{
					"enabled": boolean("oc"),
					"resource_limits": block("o", 0, map[string]*schema.Schema{
						"resource_type": str("r"), "minimum": integer("o"), "maximum": integer("o"),
					}),
					"auto_provisioning_defaults": block("oc", 1, map[string]*schema.Schema{
						"oauth_scopes": strList("oc"), "service_account": withDefault(str("o"), "default"),
						"image_type": str("o"), "min_cpu_platform": str("o"), "disk_size": integer("o"),
						"disk_type": str("o"),
					}),
					"autoscaling_profile":         str("o"),
					"auto_provisioning_locations": strList("oc"),
				}),
				"addons_config": block("oc", 1, map[string]*schema.Schema{
					"http_load_balancing": block("oc", 1, map[string]*schema.Schema{"disabled": boolean("o")}),
					"horizontal_pod_autoscaling": block("oc", 1, map[string]*schema.Schema{
						"disabled": boolean("o")}),
				}),
				"endpoint":  str("c"),
				"self_link": str("c"),
				"operation": str("c"),
				"master_auth": block("oc", 1, map[string]*schema.Schema{
					"client_certificate":     str("c"),
					"client_key":             str("cs"),
					"cluster_ca_certificate": str("c"),
					"client_certificate_config": block("rn", 1, map[string]*schema.Schema{
						"issue_client_certificate": boolean("rn")}),
				}),
			},
			autoName: map[string]string{"name": "name"},
			id: func(d *schema.ResourceData) string {
				location := d.Get("location").(string)
				if location == "" {
					location = "us-central1"
				}
				project := d.Get("project").(string)
				if project == "" {
					project = "stand-in-project"
				}
				return fmt.Sprintf("projects/%s/locations/%s/clusters/%s", project, location, d.Get("name").(string))
			},
			created: func(d *schema.ResourceData) {
				project, location, name := clusterParts(d.Id())
				setUnset(d, "project", project)
				setUnset(d, "location", location)
				_ = d.Set("endpoint", fmt.Sprintf("203.0.113.%d", 10+int(fake(name)[0])%200))
				_ = d.Set("self_link", "https://container.googleapis.com/v1/"+d.Id())
				_ = d.Set("master_auth", []interface{}{map[string]interface{}{
					"cluster_ca_certificate": base64.StdEncoding.EncodeToString([]byte("stand-in CA " + name)),
					"client_certificate_config": []interface{}{map[string]interface{}{
						"issue_client_certificate": false}},
				}})
				// GKE runs a new cluster at its release channel's default version (REGULAR when none is given:
				// cloud.google.com/kubernetes-engine/docs/concepts/release-channels), given here as one version
				master := d.Get("min_master_version").(string)
				if master == "" {
					master = "1.33.5-gke.1000"
				}
				_ = d.Set("master_version", master)
				if _, ok := d.GetOk("node_pool"); !ok && !d.Get("remove_default_node_pool").(bool) &&
					!d.Get("enable_autopilot").(bool) {
					count := d.Get("initial_node_count").(int)
					if count == 0 {
						count = 1
					}
					pool := map[string]interface{}{"name": "default-pool", "initial_node_count": count,
						"node_count": count, "version": master,
						"node_config": []interface{}{defaultNodeConfig(d.Get("node_config").([]interface{}))}}
					_ = d.Set("node_pool", []interface{}{pool})
				}
			},
		},
		// google/services/compute/resource_compute_network.go
		"google_compute_network": {
			token: "gcp:compute/network:Network",
			schema: map[string]*schema.Schema{
				"name":                    str("rn"),
				"project":                 str("ocn"),
				"description":             str("on"),
				"auto_create_subnetworks": withDefault(boolean("on"), true),
				"routing_mode":            str("oc"),
				"mtu":                     integer("ocn"),
				"self_link":               str("c"), "gateway_ipv4": str("c"),
			},
			autoName: map[string]string{"name": "name"},
			id: func(d *schema.ResourceData) string {
				return "projects/stand-in-project/global/networks/" + d.Get("name").(string)
			},
			created: func(d *schema.ResourceData) {
				_ = d.Set("self_link", "https://www.googleapis.com/compute/v1/"+d.Id())
				setUnset(d, "project", "stand-in-project")
			},
		},
		// google/services/compute/resource_compute_subnetwork.go
		"google_compute_subnetwork": {
			token: "gcp:compute/subnetwork:Subnetwork",
			schema: map[string]*schema.Schema{
				"name":                     str("rn"),
				"network":                  str("rn"),
				"ip_cidr_range":            str("r"),
				"region":                   str("ocn"),
				"project":                  str("ocn"),
				"description":              str("on"),
				"private_ip_google_access": boolean("oc"),
				"secondary_ip_range": block("oc", 0, map[string]*schema.Schema{
					"range_name": str("r"), "ip_cidr_range": str("r"),
				}),
				"self_link": str("c"), "gateway_address": str("c"),
			},
			autoName: map[string]string{"name": "name"},
			id: func(d *schema.ResourceData) string {
				region := d.Get("region").(string)
				if region == "" {
					region = "us-central1"
				}
				return fmt.Sprintf("projects/stand-in-project/regions/%s/subnetworks/%s", region, d.Get("name").(string))
			},
			created: func(d *schema.ResourceData) {
				_ = d.Set("self_link", "https://www.googleapis.com/compute/v1/"+d.Id())
				setUnset(d, "region", strings.Split(d.Id(), "/")[3])
				setUnset(d, "project", "stand-in-project")
			},
		},
		// google/services/resourcemanager/resource_google_service_account.go
		"google_service_account": {
			token: "gcp:serviceaccount/account:Account",
			schema: map[string]*schema.Schema{
				"account_id":   str("rn"),
				"display_name": str("o"),
				"description":  str("o"),
				"disabled":     withDefault(boolean("o"), false),
				"project":      str("ocn"),
				"email":        str("c"), "name": str("c"), "unique_id": str("c"), "member": str("c"),
			},
			id: func(d *schema.ResourceData) string {
				return fmt.Sprintf("projects/stand-in-project/serviceAccounts/%s@stand-in-project.iam.gserviceaccount.com",
					d.Get("account_id").(string))
			},
			created: func(d *schema.ResourceData) {
				email := d.Get("account_id").(string) + "@stand-in-project.iam.gserviceaccount.com"
				_ = d.Set("email", email)
				_ = d.Set("name", d.Id())
				_ = d.Set("member", "serviceAccount:"+email)
				_ = d.Set("unique_id", fake("sa", email)[:12])
				setUnset(d, "project", "stand-in-project")
			},
		},
	}
}

// clusterParts reads a cluster's ID (projects/<project>/locations/<location>/clusters/<name>); a bare name is a
// cluster of the provider's project and region.
func clusterParts(id string) (project, location, name string) {
	parts := strings.Split(id, "/")
	if len(parts) >= 6 && parts[0] == "projects" {
		return parts[1], parts[3], parts[5]
	}
	return "stand-in-project", "us-central1", id
}

// defaultNodeConfig is a node_config as GKE fills in what the program leaves out
// (cloud.google.com/kubernetes-engine/docs/reference/rest/v1/NodeConfig: e2-medium, a 100 GB pd-balanced boot disk,
// Container-Optimized OS with containerd, the Compute Engine default service account).
func defaultNodeConfig(given []interface{}) map[string]interface{} {
	config := map[string]interface{}{}
	if len(given) > 0 {
		if first, ok := given[0].(map[string]interface{}); ok {
			for key, value := range first {
				config[key] = value
			}
		}
	}
	defaults := map[string]interface{}{"machine_type": "e2-medium", "disk_size_gb": 100, "disk_type": "pd-balanced",
		"image_type": "COS_CONTAINERD", "service_account": "default"}
	for key, value := range defaults {
		if current, ok := config[key]; !ok || current == "" || current == 0 {
			config[key] = value
		}
	}
	return config
}

func createdPool(d *schema.ResourceData, version string) {
	_ = d.Set("node_config", []interface{}{defaultNodeConfig(d.Get("node_config").([]interface{}))})
	count := d.Get("initial_node_count").(int)
	if count == 0 {
		count = d.Get("node_count").(int)
	}
	if count == 0 {
		count = 1
	}
	setUnset(d, "initial_node_count", count)
	setUnset(d, "node_count", count)
	setUnset(d, "max_pods_per_node", 110) // GKE's default for a VPC-native cluster's pools
	if version != "" {
		setUnset(d, "version", version)
	}
	_ = d.Set("instance_group_urls", []interface{}{
		"https://www.googleapis.com/compute/v1/projects/stand-in-project/zones/us-central1-a/instanceGroupManagers/gke-" +
			fake(d.Id())[:8] + "-grp"})
}
