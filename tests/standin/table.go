package main

import (
	"encoding/json"
	"os"
	"sort"

	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"

	"github.com/pulumi/pulumi-terraform-bridge/v3/pkg/tfbridge"
	shimv2 "github.com/pulumi/pulumi-terraform-bridge/v3/pkg/tfshim/sdk-v2"
)

// fieldFacts is what the test kit needs of one field to give what the bridge gives (compute_guard/testkit/
// bridged.json): its Pulumi name's field, its shape (scalar, map, list, set, or object for a block of MaxItems 1, as
// the bridge flattens it), whether it is computed, optional and replacing, its Default, and a block's fields.
type fieldFacts struct {
	Kind     string `json:"kind"`
	Computed bool   `json:"computed,omitempty"`
	Optional bool   `json:"optional,omitempty"`
	ForceNew bool   `json:"forceNew,omitempty"`
	// a Sensitive field: the bridge marks its value secret
	Sensitive bool        `json:"sensitive,omitempty"`
	Default   interface{} `json:"default,omitempty"`
	// the fields of the same object it conflicts with (Terraform's ConflictsWith): the bridge names no default for
	// a field when one of them is set
	ConflictsWith []string               `json:"conflictsWith,omitempty"`
	Fields        map[string]*fieldFacts `json:"fields,omitempty"`
}

type resourceFacts struct {
	AutoNamed []string               `json:"autoNamed,omitempty"`
	Fields    map[string]*fieldFacts `json:"fields"`
}

func facts(fields map[string]*schema.Schema) map[string]*fieldFacts {
	shimmed := shimv2.NewSchemaMap(fields)
	found := map[string]*fieldFacts{}
	for name, field := range fields {
		fact := &fieldFacts{Computed: field.Computed, Optional: field.Optional, ForceNew: field.ForceNew,
			Sensitive: field.Sensitive, Default: field.Default}
		switch field.Type {
		case schema.TypeMap:
			fact.Kind = "map"
		case schema.TypeList, schema.TypeSet:
			fact.Kind = "list"
			if field.Type == schema.TypeSet {
				fact.Kind = "set"
			}
			if block, ok := field.Elem.(*schema.Resource); ok {
				fact.Fields = facts(block.Schema)
				if field.MaxItems == 1 {
					fact.Kind = "object"
				}
			}
		default:
			fact.Kind = "scalar"
		}
		for _, other := range field.ConflictsWith {
			if _, local := fields[other]; local { // (a path into a block names a field of another object)
				fact.ConflictsWith = append(fact.ConflictsWith, tfbridge.TerraformToPulumiNameV2(other, shimmed, nil))
			}
		}
		found[tfbridge.TerraformToPulumiNameV2(name, shimmed, nil)] = fact
	}
	return found
}

// table prints what the test kit reads of every resource of a stand-in, in Pulumi's names, by type token.
func table(resources map[string]resource) {
	out := map[string]resourceFacts{}
	for _, res := range resources {
		var named []string
		for _, pulumiName := range res.autoName {
			named = append(named, pulumiName)
		}
		sort.Strings(named)
		out[res.token] = resourceFacts{AutoNamed: named, Fields: facts(res.schema)}
	}
	encoder := json.NewEncoder(os.Stdout)
	encoder.SetIndent("", " ")
	_ = encoder.Encode(out)
}
