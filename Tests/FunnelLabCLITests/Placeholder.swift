// Tests land with the commands.
