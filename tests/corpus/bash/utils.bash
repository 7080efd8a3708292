# Shared helpers, sourced by the other scripts.

: "${UTILS_LOADED:=}"

export EDITOR=vim PAGER=less # @def variable EDITOR @def variable PAGER
declare -rx UTILS_VERSION="1.3" # @def constant UTILS_VERSION
typeset -A COLORS=([red]=31 [green]=32) # @def variable COLORS

util::color() { # @def function util::color
  local name=$1
  shift
  printf '\e[%sm%s\e[0m\n' "${COLORS[$name]}" "$*"
}

function util::confirm() { # @def function util::confirm
  local reply
  read -r -p "$1 [y/N] " reply
  [[ $reply == [yY]* ]]
}

git-current-branch() { # @def function git-current-branch
  git rev-parse --abbrev-ref HEAD  # @ref call git in git-current-branch
}

if [[ -n ${ZSH_VERSION:-} ]]; then
  is_zsh() { return 0; } # @def function is_zsh
else
  is_zsh() { return 1; } # @def function is_zsh
fi

export -f git-current-branch
