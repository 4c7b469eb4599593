# Usage: zsh -f zsh-complete.zsh SCRIPT DUMP LINE
# Prints, one per line, the candidates zsh's own completion offers for LINE after loading SCRIPT
# in an interactive zsh (compinit, its dump file DUMP) driven through a pseudo-terminal: compadd
# is wrapped to print what it would add, and the shell exits once the completion ran.
zmodload zsh/zpty
zpty z 'zsh -f -i'
zpty -w z "PS1=''; RPS1=''; autoload -U compinit && compinit -u -d ${(q)2}"
zpty -w z "bindkey '^I' complete-word"
zpty -w z "source ${(q)1}"
zpty -w z 'compadd() { local -a hits; local m=HIT h; builtin compadd -A hits "$@"; for h in $hits; do print -r -- "<$m:$h>"; done; }'
zpty -w z 'comppostfuncs=(exit)'
zpty -w z "$3"$'\t'
local out chunk
while zpty -r z chunk; do out+=$chunk; done
zpty -d z
print -r -- "$out" | grep -ao '<HIT:[^<>]*>' | sed 's/^<HIT://; s/>$//'
