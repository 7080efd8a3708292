#!/usr/bin/env bash
# Deploys the application to a set of hosts.

set -euo pipefail
source ./lib/common.sh # @ref call source @ref import ./lib/common.sh

export DEPLOY_ENV="${DEPLOY_ENV:-staging}" # @def variable DEPLOY_ENV
export PATH="$HOME/.local/bin:$PATH" # @def variable PATH
readonly RELEASE_DIR=/opt/app/releases # @def constant RELEASE_DIR
declare -r MAX_RETRIES=3 # @def constant MAX_RETRIES
declare -a HOSTS=(web1 web2 web3) # @def variable HOSTS
LOG_FILE=/var/log/deploy.log # @def variable LOG_FILE

# Prints a timestamped message.
log() { # @def function log
  local level=$1
  shift
  printf '%s [%s] %s\n' "$(date +%T)" "$level" "$*" | tee -a "$LOG_FILE"
}

function die { # @def function die
  log ERROR "$@"  # @ref call log in die
  exit 1
}

function retry() { # @def function retry
  local attempt=0
  until "$@"; do
    attempt=$((attempt + 1))
    if ((attempt >= MAX_RETRIES)); then
      die "giving up on: $*"  # @ref call die in retry
    fi
    sleep "$attempt"
  done
}

deploy_host() { # @def function deploy_host
  local host=$1 release=$2
  cleanup() { # @def function deploy_host.cleanup
    ssh "$host" "rm -rf $RELEASE_DIR/tmp"
  }
  trap cleanup RETURN
  retry rsync -az ./build/ "$host:$RELEASE_DIR/$release/"
  retry ssh "$host" "ln -sfn $RELEASE_DIR/$release /opt/app/current"
}

main() { # @def function main
  local release
  release=$(git rev-parse --short HEAD)
  for host in "${HOSTS[@]}"; do
    deploy_host "$host" "$release"
  done
  log INFO "deployed $release to ${#HOSTS[@]} hosts"
}

main "$@"
