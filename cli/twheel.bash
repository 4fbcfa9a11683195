# SPDX-License-Identifier: GPL-2.0
# bash completion for twheel(8): installed as
# /usr/share/bash-completion/completions/twheel (make install, twheel-tools).

_twheel()
{
	local cur prev cmd i
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}

	# The command: the first word after "twheel" that is not --json.
	cmd=
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		--json) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done

	if [[ -z $cmd ]]; then
		mapfile -t COMPREPLY < <(compgen -W 'info stat ps sleep arm --version --json --help' -- "$cur")
		return
	fi
	case $cmd in
	stat | ps)
		[[ $prev == --watch || $prev == -w ]] && return
		mapfile -t COMPREPLY < <(compgen -W '--watch --json' -- "$cur")
		;;
	arm)
		case $prev in
		--period | --count | --cookie) return ;;
		--cpu)
			mapfile -t COMPREPLY < <(compgen -W "$(seq 0 $(($(getconf _NPROCESSORS_CONF 2>/dev/null || echo 1) - 1)))" -- "$cur")
			return
			;;
		esac
		mapfile -t COMPREPLY < <(compgen -W '--period --fixed-delay --count --cpu --cookie --boottime --verbose --json' -- "$cur")
		;;
	info | sleep | --version)
		mapfile -t COMPREPLY < <(compgen -W '--json' -- "$cur")
		;;
	esac
}

complete -F _twheel twheel
