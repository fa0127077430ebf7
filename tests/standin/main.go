// Stand-in cloud providers for the tests (SPEC 8, issue 65): the AWS and Google Cloud providers as pulumi-aws and
// pulumi-gcp build them, from pulumi-terraform-bridge's own code (pkg/tfbridge, pkg/tfshim/sdk-v2, pkg/tfgen for the
// schema: the way every bridged provider's main is built, and the way the bridge's own integration tests build a
// provider from a Terraform schema, pkg/internal/tests/pulcheck), over Terraform schemas written here from the facts
// of the upstream providers' (each resource's file cites where). Only the cloud is a stand-in: Create gives each
// resource an ID and the values the cloud computes (cited per field), Read keeps the state, Update and Delete change
// nothing. What the engine does with them (Check's auto-names and __defaults, Diff's replacements and
// delete-before-replace, what reaches a policy pack) is the bridge's and the engine's own.
//
// One binary serves both: installed as pulumi-resource-aws it is the AWS provider, as pulumi-resource-gcp the Google
// Cloud one (its name, or STANDIN_PROVIDER, says which). Its version is the Python SDK's it stands under, given at
// build time (-X main.awsVersion=..., main.gcpVersion=...).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-sdk/v2/diag"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
	pulumidiag "github.com/pulumi/pulumi/sdk/v3/go/common/diag"
	"github.com/pulumi/pulumi/sdk/v3/go/common/diag/colors"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"

	"github.com/pulumi/pulumi-terraform-bridge/v3/pkg/tfbridge"
	"github.com/pulumi/pulumi-terraform-bridge/v3/pkg/tfgen"
	shimv2 "github.com/pulumi/pulumi-terraform-bridge/v3/pkg/tfshim/sdk-v2"
)

var (
	awsVersion = "7.51.1"
	gcpVersion = "10.2.0"
)

// resource is one Terraform resource of a stand-in: its schema, its Pulumi token, its auto-named fields (the Pulumi
// names the provider fills in when the program sets none), and what the cloud fills in when it creates it.
type resource struct {
	token    string
	schema   map[string]*schema.Schema
	autoName map[string]string // Terraform field -> its Pulumi name
	id       func(d *schema.ResourceData) string
	created  func(d *schema.ResourceData) // the values the cloud computes, set on the new resource
}

func serve(name, version string, config map[string]*schema.Schema, resources map[string]resource) {
	if len(os.Args) > 1 && os.Args[1] == "-table" {
		table(resources)
		return
	}
	tfResources := map[string]*schema.Resource{}
	infos := map[string]*tfbridge.ResourceInfo{}
	for tfName, res := range resources {
		res := res
		tfResources[tfName] = &schema.Resource{
			Schema: res.schema,
			CreateContext: func(_ context.Context, d *schema.ResourceData, _ interface{}) diag.Diagnostics {
				d.SetId(res.id(d))
				if _, tagged := res.schema["tags_all"]; tagged {
					_ = d.Set("tags_all", d.Get("tags"))
				}
				if res.created != nil {
					res.created(d)
				}
				return nil
			},
			ReadContext:   func(context.Context, *schema.ResourceData, interface{}) diag.Diagnostics { return nil },
			DeleteContext: func(context.Context, *schema.ResourceData, interface{}) diag.Diagnostics { return nil },
		}
		if _, tagged := res.schema["tags_all"]; tagged {
			// tags_all: the resource's tags and the provider's default tags, planned by the AWS provider's
			// CustomizeDiff (internal/verify.SetTagsDiff); the stand-in provider has no default tags
			tfResources[tfName].CustomizeDiff = func(_ context.Context, d *schema.ResourceDiff, _ interface{}) error {
				if !d.HasChange("tags") {
					return nil
				}
				return d.SetNew("tags_all", d.Get("tags"))
			}
		}
		if updatable(res.schema) { // (the SDK refuses an Update on a resource whose every field replaces it)
			tfResources[tfName].UpdateContext = func(context.Context, *schema.ResourceData, interface{}) diag.Diagnostics {
				return nil
			}
		}
		info := &tfbridge.ResourceInfo{Tok: tokens.Type(res.token), Fields: map[string]*tfbridge.SchemaInfo{}}
		for field, pulumiName := range res.autoName {
			// pulumi-aws and pulumi-gcp: 255 characters, "-" and 7 random hex characters (tfbridge.AutoName)
			info.Fields[field] = tfbridge.AutoName(pulumiName, 255, "-")
		}
		infos[tfName] = info
	}
	provider := &schema.Provider{Schema: config, ResourcesMap: tfResources}
	if err := provider.InternalValidate(); err != nil {
		fmt.Fprintf(os.Stderr, "stand-in %s: invalid schema: %v\n", name, err)
		os.Exit(1)
	}
	info := tfbridge.ProviderInfo{
		P: shimv2.NewProvider(provider), Name: name, Version: version, Resources: infos,
		GitHubOrg: "hashicorp", Repository: "https://github.com/pulumi/pulumi-" + name,
		MetadataInfo: tfbridge.NewProviderMetadata(nil),
	}
	sink := pulumidiag.DefaultSink(io.Discard, io.Discard, pulumidiag.FormatOptions{Color: colors.Never})
	spec, err := tfgen.GenerateSchema(info, sink)
	if err != nil {
		fmt.Fprintf(os.Stderr, "stand-in %s: tfgen.GenerateSchema: %v\n", name, err)
		os.Exit(1)
	}
	bytes, err := json.Marshal(spec)
	if err != nil {
		fmt.Fprintf(os.Stderr, "stand-in %s: %v\n", name, err)
		os.Exit(1)
	}
	if len(os.Args) > 1 && os.Args[1] == "-schema" {
		os.Stdout.Write(bytes)
		return
	}
	tfbridge.Main(name, version, info, bytes)
}

// updatable: some field of the resource changes in place (neither ForceNew nor only Computed).
func updatable(fields map[string]*schema.Schema) bool {
	for _, field := range fields {
		if !field.ForceNew && !(field.Computed && !field.Optional) {
			return true
		}
	}
	return false
}

func main() {
	which := os.Getenv("STANDIN_PROVIDER")
	if which == "" {
		which = strings.TrimPrefix(filepath.Base(os.Args[0]), "pulumi-resource-")
	}
	switch which {
	case "aws":
		serve("aws", awsVersion, awsConfig(), awsResources())
	case "gcp":
		serve("gcp", gcpVersion, gcpConfig(), gcpResources())
	default:
		names := []string{"aws", "gcp"}
		sort.Strings(names)
		fmt.Fprintf(os.Stderr, "stand-in: install me as pulumi-resource-<%s> or set STANDIN_PROVIDER\n",
			strings.Join(names, "|"))
		os.Exit(2)
	}
}
