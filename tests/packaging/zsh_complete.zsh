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
zpty -w z "bindkey '^I' complete-word"
zpty -w z "print -r -- '<rea''dy>'"
while zpty -r z line; do [[ $line == *'<ready>'* ]] && break; done
zpty -w -n z "$2"$'\t'
zpty -w -n z $'\x15'
zpty -w z "print -r -- '<do''ne>'"
while zpty -r z line; do
  [[ $line == *'<done>'* ]] && break
  [[ $line == *'<match>'* ]] && print -r -- "${${line#*<match> }%%$'\r'}"
done
zpty -d z
