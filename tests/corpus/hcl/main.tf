terraform { # @def block terraform
  required_version = ">= 1.5"
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.0"
    }
  }
}

provider "aws" { # @def provider aws
  region = var.region
}

provider "aws" {
  alias  = "west" # @def provider aws.west
  region = "us-west-2"
}

variable "region" { # @def variable region
  type        = string
  default     = "eu-central-1"
  description = "Region to deploy into."
}

variable "instance_count" { # @def variable instance_count
  type    = number
  default = 2
}

locals {
  name_prefix = "web-${terraform.workspace}" # @def variable name_prefix
  common_tags = { # @def variable common_tags
    Project = "inventory"
  }
}

data "aws_ami" "ubuntu" { # @def data aws_ami.ubuntu
  most_recent = true
  owners      = ["099720109477"]
}

module "vpc" { # @def module vpc
  source = "terraform-aws-modules/vpc/aws"
  cidr   = "10.0.0.0/16"
}

resource "aws_instance" "web" { # @def resource aws_instance.web
  count         = var.instance_count
  ami           = data.aws_ami.ubuntu.id
  instance_type = "t3.micro"
  subnet_id     = module.vpc.public_subnets[0]
  tags          = merge(local.common_tags, { Name = "${local.name_prefix}-${count.index}" })

  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_eip" "web" { # @def resource aws_eip.web
  instance = aws_instance.web[0].id
}

output "public_ip" { # @def output public_ip
  value = aws_eip.web.public_ip
}

check "health" { # @def block health
  assert {
    condition     = aws_instance.web[0].instance_state == "running"
    error_message = "The web server is not running."
  }
}

moved { # @def block moved
  from = aws_instance.app
  to   = aws_instance.web
}
