package main

import (
	"crypto/sha256"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
)

// The Terraform schema of a field in a word: its flags are r (Required), o (Optional), c (Computed), n (ForceNew),
// s (Sensitive), as the upstream provider declares the field.
func field(t schema.ValueType, flags string) *schema.Schema {
	return &schema.Schema{
		Type: t, Required: strings.Contains(flags, "r"), Optional: strings.Contains(flags, "o"),
		Computed: strings.Contains(flags, "c"), ForceNew: strings.Contains(flags, "n"),
		Sensitive: strings.Contains(flags, "s"),
	}
}

func str(flags string) *schema.Schema     { return field(schema.TypeString, flags) }
func integer(flags string) *schema.Schema { return field(schema.TypeInt, flags) }
func boolean(flags string) *schema.Schema { return field(schema.TypeBool, flags) }
func number(flags string) *schema.Schema  { return field(schema.TypeFloat, flags) }

// strDefault is a string field with the upstream provider's Default.
func withDefault(s *schema.Schema, value interface{}) *schema.Schema {
	s.Default = value
	return s
}

func conflicts(s *schema.Schema, with ...string) *schema.Schema {
	s.ConflictsWith = with
	return s
}

// strings: a list (or set) of strings.
func strList(flags string) *schema.Schema {
	s := field(schema.TypeList, flags)
	s.Elem = &schema.Schema{Type: schema.TypeString}
	return s
}

func strSet(flags string) *schema.Schema {
	s := field(schema.TypeSet, flags)
	s.Elem = &schema.Schema{Type: schema.TypeString}
	return s
}

func strMap(flags string) *schema.Schema {
	s := field(schema.TypeMap, flags)
	s.Elem = &schema.Schema{Type: schema.TypeString}
	return s
}

// block: a nested block (a list of objects), at most maxItems of them (0: no limit). pulumi-aws and pulumi-gcp make
// a block of MaxItems 1 an object, and pluralize the name of the others (tfbridge's name translation).
func block(flags string, maxItems int, fields map[string]*schema.Schema) *schema.Schema {
	s := field(schema.TypeList, flags)
	s.MaxItems = maxItems
	s.Elem = &schema.Resource{Schema: fields}
	return s
}

func blockSet(flags string, maxItems int, fields map[string]*schema.Schema) *schema.Schema {
	s := block(flags, maxItems, fields)
	s.Type = schema.TypeSet
	return s
}

// fake is a value the stand-in cloud makes up for a resource, the same for the same inputs.
func fake(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "/")))
	return fmt.Sprintf("%x", sum[:8])
}

// setUnset sets a field the program left unset to the value the cloud gives it.
func setUnset(d *schema.ResourceData, key string, value interface{}) {
	if _, ok := d.GetOk(key); !ok {
		_ = d.Set(key, value)
	}
}
