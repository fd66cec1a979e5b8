#!/usr/bin/env zsh
# zsh_complete.zsh DIR LINE: the matches zsh's completion offers after LINE
# (tab pressed at its end), with the completion functions of DIR first in
# fpath: one line per group of matches. Drives an interactive zsh in a
# pseudo-terminal (zpty) and records what the completion system adds.
zmodload zsh/zpty || exit 2
zpty z zsh -f -i
zpty -w z "PROMPT= ; RPROMPT="
zpty -w z "fpath=(${(q)1} \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w z "zstyle ':completion:*' list-grouped false; zstyle ':completion:*' insert-tab false"
zpty -w z 'compadd() { if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi; local -a __hits; builtin compadd -A __hits "$@"; local r=$?; (( $#__hits )) && print -r -- "<match>" ${(q)__hits}; builtin compadd "$@"; return r }'
# Tab completes, then says so: the next keys are sent only after that, as zsh
# cuts a completion short when typed-ahead input is waiting.
zpty -w z 'complete-and-mark() { zle complete-word; print -r -- "<comp""leted>" }; zle -N complete-and-mark'
zpty -w z "bindkey '^I' complete-and-mark"
zpty -w z "print -r -- '<rea''dy>'"
while zpty -r z line; do [[ $line == *'<ready>'* ]] && break; done
zpty -w -n z "$2"$'\t'
while zpty -r z line; do
  [[ $line == *'<match>'* ]] && print -r -- "${${line#*<match> }%%$'\r'}"
  [[ $line == *'<completed>'* ]] && break
done
zpty -w -n z $'\x15'
zpty -w z "print -r -- '<do''ne>'"
while zpty -r z line; do [[ $line == *'<done>'* ]] && break; done
zpty -d z
