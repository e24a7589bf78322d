"""The app's bounded folder and the files live sessions hold."""
