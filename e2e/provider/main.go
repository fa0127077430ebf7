// pulumi-resource-compute: a ComputeCluster resource (compute:index:ComputeCluster) for end-to-end
// tests of the compute-guard policy pack under the real Pulumi CLI.
//
// It manages nothing: its outputs are its inputs. That is all a policy pack needs to see a
// ComputeCluster in `pulumi preview`, `pulumi up` and the stack's checkpoint, with no cloud.
package main

import (
	"context"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/provider"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"
)

const version = "0.1.0"

const schema = `{
  "name": "compute",
  "version": "0.1.0",
  "resources": {
    "compute:index:ComputeCluster": {
      "description": "Logical compute pools (seed ComputeCluster); outputs mirror inputs.",
      "inputProperties": {
        "id": {"type": "string"},
        "capacityGroups": {"type": "array", "items": {"$ref": "pulumi.json#/Any"}},
        "dynamicContainerPool": {"type": "string"},
        "selectedFailureDomains": {"$ref": "pulumi.json#/Any"},
        "failureDomainSpread": {"$ref": "pulumi.json#/Any"},
        "containerCidr": {"type": "string"}
      },
      "requiredInputs": ["id", "capacityGroups"],
      "properties": {
        "capacityGroups": {"type": "array", "items": {"$ref": "pulumi.json#/Any"}},
        "dynamicContainerPool": {"type": "string"},
        "containerCidr": {"type": "string"}
      },
      "required": ["capacityGroups"]
    }
  }
}`

type computeProvider struct {
	pulumirpc.UnimplementedResourceProviderServer
}

func (p *computeProvider) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: version}, nil
}

func (p *computeProvider) GetSchema(context.Context, *pulumirpc.GetSchemaRequest) (*pulumirpc.GetSchemaResponse, error) {
	return &pulumirpc.GetSchemaResponse{Schema: schema}, nil
}

func (p *computeProvider) CheckConfig(_ context.Context, req *pulumirpc.CheckRequest) (*pulumirpc.CheckResponse, error) {
	return &pulumirpc.CheckResponse{Inputs: req.GetNews()}, nil
}

func (p *computeProvider) DiffConfig(context.Context, *pulumirpc.DiffRequest) (*pulumirpc.DiffResponse, error) {
	return &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_NONE}, nil
}

func (p *computeProvider) Configure(context.Context, *pulumirpc.ConfigureRequest) (*pulumirpc.ConfigureResponse, error) {
	return &pulumirpc.ConfigureResponse{AcceptSecrets: true, SupportsPreview: true}, nil
}

func (p *computeProvider) Check(_ context.Context, req *pulumirpc.CheckRequest) (*pulumirpc.CheckResponse, error) {
	return &pulumirpc.CheckResponse{Inputs: req.GetNews()}, nil
}

func (p *computeProvider) Diff(_ context.Context, req *pulumirpc.DiffRequest) (*pulumirpc.DiffResponse, error) {
	if proto.Equal(req.GetOldInputs(), req.GetNews()) {
		return &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_NONE}, nil
	}
	return &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_SOME}, nil
}

func (p *computeProvider) Create(_ context.Context, req *pulumirpc.CreateRequest) (*pulumirpc.CreateResponse, error) {
	id := ""
	if !req.GetPreview() {
		id = "compute-cluster"
	}
	return &pulumirpc.CreateResponse{Id: id, Properties: req.GetProperties()}, nil
}

func (p *computeProvider) Read(_ context.Context, req *pulumirpc.ReadRequest) (*pulumirpc.ReadResponse, error) {
	return &pulumirpc.ReadResponse{Id: req.GetId(), Properties: req.GetProperties(), Inputs: req.GetInputs()}, nil
}

func (p *computeProvider) Update(_ context.Context, req *pulumirpc.UpdateRequest) (*pulumirpc.UpdateResponse, error) {
	return &pulumirpc.UpdateResponse{Properties: req.GetNews()}, nil
}

func (p *computeProvider) Delete(context.Context, *pulumirpc.DeleteRequest) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}

func main() {
	err := provider.Main("compute", func(*provider.HostClient) (pulumirpc.ResourceProviderServer, error) {
		return &computeProvider{}, nil
	})
	if err != nil {
		panic(err)
	}
}
