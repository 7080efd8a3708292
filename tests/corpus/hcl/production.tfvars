# Values for the production workspace.
region         = "eu-west-1" # @def key region
instance_count = 4 # @def key instance_count
extra_tags = { # @def key extra_tags
  CostCenter = "1234"
}
