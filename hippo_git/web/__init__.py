"""The local web view (`git hippo serve`): routes and templates over what the packages below compute."""
