module compute-guard/archive-listing

go 1.24

require github.com/pulumi/pulumi/sdk/v3 v3.260.0
