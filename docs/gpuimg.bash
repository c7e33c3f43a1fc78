# SPDX-License-Identifier: MIT
# bash completion for gpuimg: commands, each command's options and, for run
# and batch, step names. Everything is read from the program's own --help,
# so it never falls out of step with the program.
_gpuimg()
{
    local cur=${COMP_WORDS[COMP_CWORD]} cmd="" i
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
        -*) ;;
        *) cmd=${COMP_WORDS[i]}; break ;;
        esac
    done
    local ops
    ops=$("${COMP_WORDS[0]}" --help 2>/dev/null | awk '/^  [a-z]+ /{print $1}')
    if [[ $cur == -* ]]; then
        local help
        if [[ -n $cmd ]]; then help=$("${COMP_WORDS[0]}" "$cmd" --help 2>/dev/null); fi
        help+=$("${COMP_WORDS[0]}" --help 2>/dev/null)
        mapfile -t COMPREPLY < <(compgen -W "$(grep -o -- '--[a-z][a-z0-9-]*' <<<"$help" | sort -u)" -- "$cur")
    elif [[ -z $cmd ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$ops" -- "$cur")
    elif [[ ($cmd == run || $cmd == batch) && $cur != */* && $cur != *.* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$ops" -- "$cur"; compgen -f -- "$cur")
    else
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    fi
}
complete -o filenames -F _gpuimg gpuimg
