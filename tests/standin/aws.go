package main

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
)

// The AWS provider's configuration: what a program's stack config (aws:region, ...) gives its default provider
// (hashicorp/terraform-provider-aws internal/provider/provider.go).
func awsConfig() map[string]*schema.Schema {
	return map[string]*schema.Schema{
		"region": str("o"), "profile": str("o"), "access_key": str("o"), "secret_key": str("os"),
		"token": str("os"), "skip_credentials_validation": boolean("o"), "skip_region_validation": boolean("o"),
		"skip_requesting_account_id": boolean("o"), "skip_metadata_api_check": str("o"),
		"shared_config_files": strList("o"), "shared_credentials_files": strList("o"),
		"default_tags":        block("o", 1, map[string]*schema.Schema{"tags": strMap("o")}),
		"allowed_account_ids": strSet("o"), "forbidden_account_ids": strSet("o"),
	}
}

func tags() map[string]*schema.Schema {
	// (tags_all is Optional and Computed upstream, planned by its CustomizeDiff; pulumi-aws 7 takes no tagsAll input)
	return map[string]*schema.Schema{"tags": strMap("o"), "tags_all": strMap("c")}
}

func with(base map[string]*schema.Schema, more map[string]*schema.Schema) map[string]*schema.Schema {
	for key, value := range more {
		base[key] = value
	}
	return base
}

func arn(service, kind, name string) string {
	return fmt.Sprintf("arn:aws:%s:us-west-2:123456789012:%s/%s", service, kind, name)
}

// graviton: the instance families of AWS Graviton (arm64) processors, whose managed node groups EKS gives an ARM AMI
// (docs.aws.amazon.com/ec2/latest/instancetypes: a "g" after the generation digit).
func graviton(instanceType string) bool {
	family := strings.SplitN(instanceType, ".", 2)[0]
	for i, c := range family {
		if c >= '0' && c <= '9' {
			rest := family[i+1:]
			return strings.HasPrefix(rest, "g") || family == "a1"
		}
	}
	return family == "a1"
}

func awsResources() map[string]resource {
	return map[string]resource{
		// hashicorp/terraform-provider-aws internal/service/eks/cluster.go; pulumi-aws auto-names `name`
		// (provider/autonaming.go: every resource with an input `name`).
		"aws_eks_cluster": {
			token: "aws:eks/cluster:Cluster",
			schema: with(tags(), map[string]*schema.Schema{
				"name":     str("rn"),
				"role_arn": str("rn"),
				"version":  str("oc"),
				"access_config": block("oc", 1, map[string]*schema.Schema{
					"authentication_mode":                         str("oc"),
					"bootstrap_cluster_creator_admin_permissions": withDefault(boolean("on"), true),
				}),
				"bootstrap_self_managed_addons": withDefault(boolean("on"), true),
				"compute_config": block("o", 1, map[string]*schema.Schema{
					"enabled": boolean("o"), "node_pools": strSet("o"), "node_role_arn": str("o"),
				}),
				"enabled_cluster_log_types": strSet("o"),
				"kubernetes_network_config": block("oc", 1, map[string]*schema.Schema{
					"elastic_load_balancing": block("oc", 1, map[string]*schema.Schema{"enabled": boolean("o")}),
					"ip_family":              str("ocn"),
					"service_ipv4_cidr":      str("ocn"),
					"service_ipv6_cidr":      str("c"),
				}),
				"remote_network_config": block("on", 1, map[string]*schema.Schema{
					"remote_node_networks": block("r", 1, map[string]*schema.Schema{"cidrs": strSet("on")}),
				}),
				"upgrade_policy": block("oc", 1, map[string]*schema.Schema{"support_type": str("oc")}),
				"vpc_config": block("r", 1, map[string]*schema.Schema{
					"cluster_security_group_id": str("c"),
					"endpoint_private_access":   withDefault(boolean("o"), false),
					"endpoint_public_access":    withDefault(boolean("o"), true),
					"public_access_cidrs":       strSet("oc"),
					"security_group_ids":        strSet("o"),
					"subnet_ids":                strSet("r"),
					"vpc_id":                    str("c"),
				}),
				"arn": str("c"), "cluster_id": str("c"), "created_at": str("c"), "endpoint": str("c"),
				"platform_version": str("c"), "status": str("c"),
				"certificate_authority": block("c", 0, map[string]*schema.Schema{"data": str("c")}),
				"identity": block("c", 0, map[string]*schema.Schema{
					"oidc": block("c", 0, map[string]*schema.Schema{"issuer": str("c")}),
				}),
			}),
			autoName: map[string]string{"name": "name"},
			id:       func(d *schema.ResourceData) string { return d.Get("name").(string) },
			created: func(d *schema.ResourceData) {
				name := d.Get("name").(string)
				hex := strings.ToUpper(fake("eks", name))
				_ = d.Set("arn", arn("eks", "cluster", name))
				_ = d.Set("endpoint", fmt.Sprintf("https://%s.gr7.us-west-2.eks.amazonaws.com", hex))
				_ = d.Set("certificate_authority", []interface{}{map[string]interface{}{
					"data": base64.StdEncoding.EncodeToString([]byte("compute-guard stand-in CA " + name))}})
				_ = d.Set("status", "ACTIVE")
				_ = d.Set("platform_version", "eks.1")
				_ = d.Set("cluster_id", fake("cluster", name))
				_ = d.Set("created_at", "2026-01-01T00:00:00Z")
				_ = d.Set("identity", []interface{}{map[string]interface{}{"oidc": []interface{}{
					map[string]interface{}{"issuer": "https://oidc.eks.us-west-2.amazonaws.com/id/" + hex}}}})
				// EKS creates a cluster at its default Kubernetes version when none is given, in extended support
				// by default (docs.aws.amazon.com/eks/latest/APIReference/API_CreateCluster.html: version,
				// upgradePolicy "EXTENDED" by default).
				setUnset(d, "version", "1.33")
				if _, ok := d.GetOk("upgrade_policy"); !ok {
					_ = d.Set("upgrade_policy", []interface{}{map[string]interface{}{"support_type": "EXTENDED"}})
				}
			},
		},
		// internal/service/eks/node_group.go; pulumi-aws auto-names node_group_name
		// (provider/resources.go: tfbridge.AutoName("nodeGroupName", 255, "-")).
		"aws_eks_node_group": {
			token: "aws:eks/nodeGroup:NodeGroup",
			schema: with(tags(), map[string]*schema.Schema{
				"ami_type":             str("ocn"),
				"capacity_type":        str("ocn"),
				"cluster_name":         str("rn"),
				"disk_size":            integer("ocn"),
				"force_update_version": boolean("o"),
				"instance_types":       strList("ocn"),
				"labels":               strMap("o"),
				"launch_template": block("o", 1, map[string]*schema.Schema{
					"id":      conflicts(str("ocn"), "launch_template.0.name"),
					"name":    conflicts(str("ocn"), "launch_template.0.id"),
					"version": str("r"),
				}),
				"node_group_name":        conflicts(str("ocn"), "node_group_name_prefix"),
				"node_group_name_prefix": conflicts(str("ocn"), "node_group_name"),
				"node_repair_config": block("oc", 1, map[string]*schema.Schema{
					"enabled": withDefault(boolean("o"), false)}),
				"node_role_arn":   str("rn"),
				"release_version": str("oc"),
				"remote_access": block("on", 1, map[string]*schema.Schema{
					"ec2_ssh_key": str("on"), "source_security_group_ids": strSet("on"),
				}),
				"scaling_config": block("r", 1, map[string]*schema.Schema{
					"desired_size": integer("r"), "max_size": integer("r"), "min_size": integer("r"),
				}),
				"subnet_ids": strSet("rn"),
				"taint": blockSet("o", 50, map[string]*schema.Schema{
					"key": str("r"), "value": str("o"), "effect": str("r"),
				}),
				"update_config": block("oc", 1, map[string]*schema.Schema{
					"max_unavailable": integer("o"), "max_unavailable_percentage": integer("o"),
				}),
				"version": str("oc"),
				"arn":     str("c"), "status": str("c"),
				"resources": block("c", 0, map[string]*schema.Schema{
					"autoscaling_groups":              block("c", 0, map[string]*schema.Schema{"name": str("c")}),
					"remote_access_security_group_id": str("c"),
				}),
			}),
			autoName: map[string]string{"node_group_name": "nodeGroupName"},
			id: func(d *schema.ResourceData) string {
				return d.Get("cluster_name").(string) + ":" + groupName(d)
			},
			created: func(d *schema.ResourceData) {
				name := groupName(d)
				setUnset(d, "node_group_name", name)
				_ = d.Set("arn", arn("eks", "nodegroup", d.Get("cluster_name").(string)+"/"+name))
				_ = d.Set("status", "ACTIVE")
				// What EKS gives a managed node group the request leaves out
				// (docs.aws.amazon.com/eks/latest/APIReference/API_CreateNodegroup.html): t3.medium, ON_DEMAND, a
				// 20 GiB disk, and the AL2023 AMI of the instance types' architecture.
				setUnset(d, "instance_types", []interface{}{"t3.medium"})
				setUnset(d, "capacity_type", "ON_DEMAND")
				if _, ok := d.GetOk("launch_template"); !ok {
					setUnset(d, "disk_size", 20)
				}
				ami := "AL2023_x86_64_STANDARD"
				if types := d.Get("instance_types").([]interface{}); len(types) > 0 {
					if first, ok := types[0].(string); ok && graviton(first) {
						ami = "AL2023_ARM_64_STANDARD"
					}
				}
				setUnset(d, "ami_type", ami)
				_ = d.Set("resources", []interface{}{map[string]interface{}{
					"autoscaling_groups": []interface{}{map[string]interface{}{"name": "eks-" + name + "-" + fake(name)}},
				}})
			},
		},
		// internal/service/eks/fargate_profile.go; pulumi-aws auto-names fargate_profile_name.
		"aws_eks_fargate_profile": {
			token: "aws:eks/fargateProfile:FargateProfile",
			schema: with(tags(), map[string]*schema.Schema{
				"cluster_name":           str("rn"),
				"fargate_profile_name":   str("ocn"),
				"pod_execution_role_arn": str("rn"),
				"subnet_ids":             strSet("on"),
				"selector": blockSet("rn", 0, map[string]*schema.Schema{
					"namespace": str("rn"), "labels": strMap("on"),
				}),
				"arn": str("c"), "status": str("c"),
			}),
			autoName: map[string]string{"fargate_profile_name": "fargateProfileName"},
			id: func(d *schema.ResourceData) string {
				return d.Get("cluster_name").(string) + ":" + d.Get("fargate_profile_name").(string)
			},
			created: func(d *schema.ResourceData) { _ = d.Set("status", "ACTIVE") },
		},
		// internal/service/eks/addon.go
		"aws_eks_addon": {
			token: "aws:eks/addon:Addon",
			schema: with(tags(), map[string]*schema.Schema{
				"addon_name": str("rn"), "cluster_name": str("rn"), "addon_version": str("oc"),
				"configuration_values": str("oc"), "resolve_conflicts_on_create": str("o"),
				"resolve_conflicts_on_update": str("o"), "service_account_role_arn": str("o"),
				"preserve": boolean("o"), "arn": str("c"),
			}),
			id: func(d *schema.ResourceData) string {
				return d.Get("cluster_name").(string) + ":" + d.Get("addon_name").(string)
			},
		},
		// internal/service/iam/role.go; pulumi-aws auto-names `name`.
		"aws_iam_role": {
			token: "aws:iam/role:Role",
			schema: with(tags(), map[string]*schema.Schema{
				"name":                  conflicts(str("ocn"), "name_prefix"),
				"name_prefix":           conflicts(str("ocn"), "name"),
				"assume_role_policy":    str("r"),
				"description":           str("o"),
				"force_detach_policies": withDefault(boolean("o"), false),
				"max_session_duration":  withDefault(integer("o"), 3600),
				"path":                  withDefault(str("on"), "/"),
				"permissions_boundary":  str("o"),
				"managed_policy_arns":   strSet("oc"),
				"arn":                   str("c"), "unique_id": str("c"), "create_date": str("c"),
			}),
			autoName: map[string]string{"name": "name"},
			id:       func(d *schema.ResourceData) string { return d.Get("name").(string) },
			created: func(d *schema.ResourceData) {
				_ = d.Set("arn", "arn:aws:iam::123456789012:role/"+d.Get("name").(string))
				_ = d.Set("unique_id", strings.ToUpper("AROA"+fake("role", d.Get("name").(string))))
			},
		},
		// internal/service/iam/role_policy_attachment.go
		"aws_iam_role_policy_attachment": {
			token:  "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
			schema: map[string]*schema.Schema{"role": str("rn"), "policy_arn": str("rn")},
			id: func(d *schema.ResourceData) string {
				return d.Get("role").(string) + "-" + fake(d.Get("policy_arn").(string))
			},
		},
		// internal/service/ec2/ec2_launch_template.go; pulumi-aws auto-names `name`.
		"aws_launch_template": {
			token: "aws:ec2/launchTemplate:LaunchTemplate",
			schema: with(tags(), map[string]*schema.Schema{
				"name":                   conflicts(str("ocn"), "name_prefix"),
				"name_prefix":            conflicts(str("ocn"), "name"),
				"description":            str("o"),
				"default_version":        conflicts(integer("oc"), "update_default_version"),
				"update_default_version": conflicts(boolean("o"), "default_version"),
				"image_id":               str("o"),
				"instance_type":          str("o"),
				"key_name":               str("o"),
				"user_data":              str("o"),
				"vpc_security_group_ids": strSet("o"),
				"iam_instance_profile": block("o", 1, map[string]*schema.Schema{
					"arn": str("o"), "name": str("o"),
				}),
				"block_device_mappings": block("o", 0, map[string]*schema.Schema{
					"device_name": str("o"),
					"ebs": block("o", 1, map[string]*schema.Schema{
						"volume_size": integer("oc"), "volume_type": str("oc"), "encrypted": str("o"),
						"delete_on_termination": str("o"),
					}),
				}),
				"metadata_options": block("oc", 1, map[string]*schema.Schema{
					"http_endpoint": str("oc"), "http_tokens": str("oc"), "http_put_response_hop_limit": integer("oc"),
				}),
				"network_interfaces": block("o", 0, map[string]*schema.Schema{
					"associate_public_ip_address": str("o"), "security_groups": strSet("o"), "subnet_id": str("o"),
					"device_index": integer("o"), "delete_on_termination": str("o"),
				}),
				"tag_specifications": block("o", 0, map[string]*schema.Schema{
					"resource_type": str("o"), "tags": strMap("o"),
				}),
				"arn": str("c"), "latest_version": integer("c"),
			}),
			autoName: map[string]string{"name": "name"},
			id:       func(d *schema.ResourceData) string { return "lt-" + fake("lt", d.Get("name").(string))[:17] },
			created: func(d *schema.ResourceData) {
				_ = d.Set("arn", arn("ec2", "launch-template", d.Id()))
				_ = d.Set("latest_version", 1)
				setUnset(d, "default_version", 1)
			},
		},
		// internal/service/autoscaling/group.go; pulumi-aws auto-names `name`.
		"aws_autoscaling_group": {
			token: "aws:autoscaling/group:Group",
			schema: map[string]*schema.Schema{
				"name":                      conflicts(str("ocn"), "name_prefix"),
				"name_prefix":               conflicts(str("ocn"), "name"),
				"max_size":                  integer("r"),
				"min_size":                  integer("r"),
				"desired_capacity":          integer("oc"),
				"availability_zones":        strSet("oc"),
				"vpc_zone_identifier":       strSet("oc"),
				"launch_configuration":      str("o"),
				"health_check_type":         str("oc"),
				"health_check_grace_period": withDefault(integer("o"), 300),
				"capacity_rebalance":        boolean("o"),
				"force_delete":              withDefault(boolean("o"), false),
				"protect_from_scale_in":     withDefault(boolean("o"), false),
				"target_group_arns":         strSet("oc"),
				"launch_template": block("o", 1, map[string]*schema.Schema{
					"id": str("oc"), "name": str("oc"), "version": str("o"),
				}),
				"mixed_instances_policy": block("o", 1, map[string]*schema.Schema{
					"instances_distribution": block("oc", 1, map[string]*schema.Schema{
						"on_demand_base_capacity":                  integer("oc"),
						"on_demand_percentage_above_base_capacity": integer("oc"),
						"spot_allocation_strategy":                 str("oc"),
					}),
					"launch_template": block("r", 1, map[string]*schema.Schema{
						"launch_template_specification": block("r", 1, map[string]*schema.Schema{
							"launch_template_id": str("oc"), "launch_template_name": str("oc"), "version": str("oc"),
						}),
						"override": block("o", 0, map[string]*schema.Schema{
							"instance_type": str("o"), "weighted_capacity": str("o"),
						}),
					}),
				}),
				"initial_lifecycle_hook": blockSet("on", 0, map[string]*schema.Schema{
					"name": str("r"), "lifecycle_transition": str("r"), "default_result": str("oc"),
					"heartbeat_timeout": integer("o"),
				}),
				"tag": blockSet("o", 0, map[string]*schema.Schema{
					"key": str("r"), "value": str("r"), "propagate_at_launch": boolean("r"),
				}),
				"arn": str("c"),
			},
			autoName: map[string]string{"name": "name"},
			id:       func(d *schema.ResourceData) string { return d.Get("name").(string) },
			created: func(d *schema.ResourceData) {
				_ = d.Set("arn", arn("autoscaling", "autoScalingGroupName", d.Get("name").(string)))
				setUnset(d, "desired_capacity", d.Get("min_size"))
			},
		},
	}
}

// groupName is a node group's name as the provider creates it: its node_group_name, else its prefix and a unique
// suffix (terraform-plugin-sdk's id.PrefixedUniqueId, as create.Name does).
func groupName(d *schema.ResourceData) string {
	if name, ok := d.GetOk("node_group_name"); ok {
		return name.(string)
	}
	prefix := d.Get("node_group_name_prefix").(string)
	return prefix + fake(prefix, d.Get("cluster_name").(string))[:16] + "00000001"
}
