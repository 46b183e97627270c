// Placeholder removed once the commands land.
